/** Tests of the embedding API: compile/run, execFile, predeclared values, call, load, freezing, errors. */
import assert from "node:assert/strict";
import {
  Builtin,
  call,
  compile,
  type Dict,
  EvalError,
  execFile,
  freeze,
  fromJS,
  List,
  repr,
  standardPredeclared,
  StarFunction,
  StarlarkSyntaxError,
  Thread,
  toJS,
  toJSString,
  type Value,
} from "./mod.ts";

Deno.test("api: a program compiles once and runs on several threads with different predeclared values", () => {
  const p = compile('load("m", "name")\ngreeting = prefix + ", " + name\n', {
    filename: "hello.star",
    predeclared: ["prefix"],
  });
  assert.deepEqual(p.globalNames, ["greeting"]);
  assert.deepEqual(p.predeclaredNames, ["prefix"]);
  assert.deepEqual(p.loads, ["m"]);
  const load = (_t: Thread, m: string) => new Map<string, Value>([["name", m === "m" ? "world" : "?"]]);
  const a = p.run(new Thread({ load }), { prefix: "hello" });
  const b = p.run(new Thread({ load }), new Map([["prefix", "bye"]]));
  assert.equal(a.get("greeting"), "hello, world");
  assert.equal(b.get("greeting"), "bye, world");
});

Deno.test("api: missing predeclared value is reported when used", () => {
  const p = compile("x = host\n", { predeclared: ["host"] });
  assert.throws(() => p.run(new Thread()), /internal error: predeclared variable host is uninitialized/);
});

Deno.test("api: compile errors are syntax errors with positions", () => {
  try {
    compile("def f():\n    return undefined_name\n", { filename: "x.star" });
    assert.fail("no error");
  } catch (e) {
    assert.ok(e instanceof StarlarkSyntaxError);
    assert.equal(e.message, "x.star:2:12: undefined: undefined_name");
    assert.deepEqual([e.filename, e.line, e.col, e.msg], ["x.star", 2, 12, "undefined: undefined_name"]);
  }
  assert.throws(() => compile("x = (\n"), StarlarkSyntaxError);
});

Deno.test("api: execFile freezes globals; functions can still be called", () => {
  const { globals, thread } = execFile(
    "items = []\ndef add(x):\n    items.append(x)\ndef total(extra = 0):\n    return len(items) + extra\n",
  );
  assert.equal(call(thread, globals.get("total")!, [], [["extra", 2]]), 2);
  assert.throws(
    () => call(thread, globals.get("add")!, [1], []),
    (e: unknown) => e instanceof EvalError && e.message === "append: cannot append to frozen list",
  );
});

Deno.test("api: freezing a function freezes its defaults and captured values", () => {
  const p = compile(
    "def make():\n    seen = []\n    def f(acc = []):\n        acc.append(1)\n        seen.append(1)\n        return len(acc)\n    return f\n",
  );
  const thread = new Thread();
  const g = p.run(thread);
  const f = call(thread, g.get("make")!, [], []);
  assert.ok(f instanceof StarFunction);
  assert.equal(call(thread, f, [], []), 1);
  freeze(f);
  assert.throws(() => call(thread, f, [], []), /cannot append to frozen list/);
  // A fresh accumulator still fails: the captured list was frozen too.
  assert.throws(() => call(thread, f, [new List()], []), /cannot append to frozen list/);
});

Deno.test("api: call passes positional and keyword arguments and reports the callee's stack", () => {
  const { globals, thread } = execFile(
    "def f(a, b = 2, *rest, **kw):\n    return [a, b, rest, kw]\ndef bad():\n    return 1 // 0\n",
    { filename: "c.star" },
  );
  const r = call(thread, globals.get("f")!, [1, 5, 6], [["k", "v"]]);
  assert.equal(repr(r), '[1, 5, (6,), {"k": "v"}]');
  try {
    call(thread, globals.get("bad")!, [], []);
    assert.fail("no error");
  } catch (e) {
    assert.ok(e instanceof EvalError);
    assert.deepEqual(e.callStack, [{ name: "bad", filename: "c.star", line: 4, col: 14 }]);
  }
  assert.throws(() => call(thread, 3, [], []), /invalid call of non-function \(int\)/);
});

Deno.test("api: host built-ins receive arguments and can call back into Starlark", () => {
  const calls: string[] = [];
  const apply = new Builtin("apply", (thread, args, kwargs) => {
    calls.push(`${args.length} ${kwargs.map(([k]) => k).join(",")}`);
    return call(thread, args[0], args.slice(1), kwargs);
  });
  const { globals } = execFile("x = apply(lambda a, b = 0: a * 10 + b, 4, b = 2)\n", {
    predeclared: { apply },
  });
  assert.equal(globals.get("x"), 42);
  assert.deepEqual(calls, ["2 b"]);
});

Deno.test("api: load hook results, missing names and failures", () => {
  const load = (_t: Thread, m: string): ReadonlyMap<string, Value> => {
    if (m === "broken") throw new Error("no such module");
    return new Map<string, Value>([["value", 1], ["other", 2]]);
  };
  assert.equal(execFile('load("lib", v = "value")\nx = v + 1\n', { load }).globals.get("x"), 2);
  assert.throws(
    () => execFile('load("lib", "valeu")\n', { load }),
    (e: unknown) =>
      e instanceof EvalError &&
      e.message === "load: name valeu not found in module lib (did you mean value?)",
  );
  assert.throws(
    () => execFile('load("broken", "x")\n', { load }),
    (e: unknown) => e instanceof EvalError && e.message === "cannot load broken: no such module",
  );
  assert.throws(() => execFile('load("lib", "x")\n'), /load not implemented by this application/);
});

Deno.test("api: print hook and the standard modules", () => {
  const out: string[] = [];
  execFile('print("a", 1, json.encode({"k": [1, 2]}), math.floor(2.5), sum([1, 2]) if False else 0)\n', {
    predeclared: standardPredeclared(),
    print: (_t, msg) => out.push(toJSString(msg)),
  });
  assert.deepEqual(out, ['a 1 {"k":[1,2]} 2 0']);
});

Deno.test("api: functions have the reference's type, repr and identity hashing", () => {
  const { globals } = execFile("def f():\n    pass\ng = lambda: 1\nd = {f: 1, g: 2}\n");
  assert.equal(repr(globals.get("f")!), "<function f>");
  assert.equal(repr(globals.get("g")!), "<function lambda>");
  assert.equal((globals.get("d") as Dict).size, 2);
});

Deno.test("api: values convert to and from JS", () => {
  const v = fromJS({ a: [1, "x", null, true] });
  const { globals } = execFile("y = [x['a'][0] + 1, x['a'][1] * 2]\n", { predeclared: { x: v } });
  assert.deepEqual(toJS(globals.get("y")!), [2, "xx"]);
});

Deno.test("api: execFile can run on a caller-supplied thread", () => {
  const thread = new Thread({ maxSteps: 1000 });
  assert.throws(() => execFile("def f():\n    for i in range(100000):\n        pass\nf()\n", { thread }));
  assert.ok(thread.steps > 1000);
  const ok = execFile("x = 1\n", { thread: new Thread({ name: "t1" }) });
  assert.equal(ok.thread.name, "t1");
});
