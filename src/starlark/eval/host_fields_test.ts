/**
 * Host values with fields (`starlarkAttr`/`setField` and {@link NoSuchAttrError}) and the
 * `loadBindsGlobally` dialect option, checked against the reference's behaviour (starlark-go's
 * `getAttr`/`setField` add a spelling hint to a "no such attribute" error; `LoadBindsGlobally` makes
 * `load` bind globals).
 */
import assert from "node:assert/strict";
import {
  Builtin,
  EvalError,
  execFile,
  NoSuchAttrError,
  StarlarkSyntaxError,
  StarObject,
  type Value,
} from "../mod.ts";

/** A record whose fields can be set, except names starting with `no`, which it refuses as missing. */
class Record extends StarObject {
  readonly fields = new Map<string, Value>();
  get typeName(): string {
    return "record";
  }
  starlarkAttr(name: string): Value | undefined {
    if (name.startsWith("bad")) throw new NoSuchAttrError(`record has no .${name} attribute`);
    return this.fields.get(name);
  }
  starlarkAttrNames(): string[] {
    return [...this.fields.keys()].sort();
  }
  setField(name: string, v: Value): void {
    if (name.startsWith("no")) throw new NoSuchAttrError(`no .${name} field`);
    this.fields.set(name, v);
  }
}

function errorOf(src: string, options: Parameters<typeof execFile>[1] = {}): string {
  try {
    execFile(src, options);
  } catch (e) {
    if (e instanceof EvalError || e instanceof StarlarkSyntaxError) return e.message;
    throw e;
  }
  return "no error";
}

const predeclared = { record: new Builtin("record", () => new Record()) };

Deno.test("host fields: a refused assignment gets a spelling hint", () => {
  const msg = errorOf("r = record()\nr.forty_five = 45\nr.noForty_Five = 46\n", { predeclared });
  assert.equal(msg, "no .noForty_Five field (did you mean .forty_five?)");
  assert.equal(errorOf("r = record()\nr.nothing = 1\n", { predeclared }), "no .nothing field");
});

Deno.test("host fields: a host's own missing-attribute message keeps its text and gets a hint", () => {
  assert.equal(
    errorOf("r = record()\nr.badge = 1\nr.badg\n", { predeclared }),
    "record has no .badg attribute (did you mean .badge?)",
  );
  assert.equal(
    errorOf("r = record()\nr.one = 1\nr.onee\n", { predeclared }),
    "record has no .onee field or method (did you mean .one?)",
  );
});

Deno.test("loadBindsGlobally: load binds a global, visible before the load statement", () => {
  const load = () => new Map<string, Value>([["x", 1]]);
  const src = "def f():\n    return x\n_ = x\nload('m', 'x')\n";
  // By default the binding is file-local: the use before the load is a local-variable error.
  assert.equal(errorOf(src, { load }), "local variable x referenced before assignment");
  assert.equal(
    errorOf(src, { load, dialect: { loadBindsGlobally: true } }),
    "global variable x referenced before assignment",
  );
  const { globals } = execFile("load('m', 'x')\ny = x + 1\n", { load, dialect: { loadBindsGlobally: true } });
  assert.deepEqual([...globals], [["x", 1], ["y", 2]]);
  // Reassigning a loaded global is still an error without globalReassign.
  assert.match(
    errorOf("load('m', 'x')\nx = 2\n", { load, dialect: { loadBindsGlobally: true } }),
    /cannot reassign global x/,
  );
});
