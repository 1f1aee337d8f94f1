import assert from "node:assert/strict";
import { Module, ResourceError } from "../starlark/mod.ts";
import type { CapabilityStub, ExecutionBudgets } from "./contract.ts";
import { decodeArguments, decodeHostValue, encodeHostValue } from "./host_codec.ts";
import { buildCapabilityEnv, type NativeBridge, NativeFailure, runProgram } from "./program.ts";
import type { RunOutcome } from "./protocol.ts";

const STUBS: CapabilityStub[] = [
  { name: "records.lookup", input: { kind: "struct", fields: [{ name: "key", type: { kind: "str" } }] } },
  { name: "a.b.c", input: { kind: "struct", fields: [] } },
];
const ENV = buildCapabilityEnv(STUBS);
const BUDGETS: ExecutionBudgets = {
  maxSourceBytes: 65_536,
  maxExecutionSteps: 100_000,
  maxExecutionTime: 5_000,
  maxNativeCalls: 5,
  maxValueDepth: 32,
  maxValueBytes: 1 << 20,
  maxIntermediateValueBytes: 1 << 23,
};
const LIMITS = { maxBytes: 1 << 20, maxDepth: 32 };

const echo: NativeBridge = (index, args) => {
  const decoded = decodeArguments(args, STUBS[index].input, LIMITS);
  return encodeHostValue({ index, ...decoded }, LIMITS);
};

function run(
  source: string,
  options: {
    budgets?: Partial<ExecutionBudgets>;
    native?: NativeBridge;
    interrupt?: () => string | undefined;
    memory?: number;
  } = {},
): RunOutcome {
  return runProgram({
    source,
    env: ENV,
    budgets: { ...BUDGETS, ...options.budgets },
    maxMemoryBytes: options.memory ?? 1 << 24,
    checkInterrupt: options.interrupt ?? (() => undefined),
    native: options.native ?? echo,
  });
}

function value(o: RunOutcome): unknown {
  assert.ok(o.ok, JSON.stringify(o));
  return decodeHostValue(o.value, LIMITS);
}

function failed(o: RunOutcome, kind: string, pattern?: RegExp): string {
  assert.ok(!o.ok, "expected a failure");
  assert.equal(o.kind, kind, `${o.kind}: ${o.message}`);
  if (pattern) assert.match(o.detail ?? o.message, pattern);
  return o.detail ?? o.message;
}

Deno.test("program: runs main() with capabilities, json, math and sum", () => {
  const src = "def main():\n" +
    '    r = records.lookup(key="k")\n' +
    '    return [r, a.b.c(), json.encode({"x": 1}), math.floor(2.5), sum([1, 2])]\n';
  const o = run(src);
  assert.deepEqual(value(o), [{ index: 0, key: "k" }, { index: 1 }, '{"x":1}', 2, 3]);
  assert.ok(o.steps > 0);
});

Deno.test("program: the main() contract", () => {
  failed(run("x = 1\n"), "program", /must define a function main\(\)/);
  failed(run("main = 1\n"), "program", /main must be a function, not int/);
  failed(run("main = len\n"), "program", /main must be a function/);
  for (const params of ["x", "x=1", "*args", "**kw", "*, k", "*, k=1"]) {
    failed(run(`def main(${params}):\n    return 1\n`), "program", /must not take any parameters/);
  }
  assert.equal(value(run("main = lambda: 7\n")), 7);
  failed(
    run('load("x.star", "y")\ndef main():\n    return 1\n'),
    "program",
    /load statements are not allowed/,
  );
  // print output is discarded and does not disturb the result.
  assert.equal(value(run('def main():\n    print("hello")\n    return "ok"\n')), "ok");
});

Deno.test("program: native calls only while main() runs", () => {
  failed(
    run('x = records.lookup(key="a")\ndef main():\n    return x\n'),
    "program",
    /only allowed while main\(\) runs/,
  );
  failed(
    run('def f():\n    return records.lookup(key="a")\ny = f()\ndef main():\n    return y\n'),
    "program",
    /only allowed while main\(\) runs/,
  );
});

Deno.test("program: classified failures", () => {
  failed(run("def main(:\n"), "program", /^main\.star:1:11: /);
  const rt = failed(run('def main():\n    x = {}\n    return x["missing"]\n'), "program");
  assert.match(rt, /^main\.star:3:13: in main: key "missing" not in dict/);
  assert.doesNotMatch(rt, /\/work|file:/, "no host paths");
  failed(run("l = [1]\ndef main():\n    l.append(2)\n"), "program", /frozen list/);
  failed(run('def main():\n    fail("bad \\x1b thing")\n'), "program", /bad \\x1b thing/);
  failed(run("def main():\n    return set\n"), "program");
  failed(run("def main():\n    return records.lookup\n"), "program", /unsupported final value/);
  failed(run("def main():\n    return {1: 2}\n"), "program", /unsupported final value/);
  failed(run("def main():\n    return float('nan')\n"), "program", /unsupported final value/);
  failed(run("def main():\n    return 1 << 60\n"), "program", /out of range/);
  failed(
    run("def main():\n    return records.lookup(key=1)\n"),
    "arguments",
    /records\.lookup: argument key must be str/,
  );
  failed(run('def main():\n    return records.lookup("a")\n'), "arguments", /positional/);
});

Deno.test("program: budgets", () => {
  const loop = "def main():\n    n = 0\n    for i in range(100000000):\n        n += 1\n    return n\n";
  failed(run(loop), "resource", /too many steps/);
  const bomb = 'def main():\n    s = "x"\n    for i in range(64):\n        s = s + s\n    return len(s)\n';
  failed(run(bomb, { memory: 1 << 20 }), "resource", /memory/);
  const calls = 'def main():\n    for i in range(6):\n        records.lookup(key="a")\n';
  failed(run(calls), "resource", /more than 5 native calls/);
  assert.equal(value(run(calls.replace("range(6)", "range(5)"))), null);
  failed(
    run("def main():\n    return [[[1]]]\n", { budgets: { maxValueDepth: 3 } }),
    "resource",
    /deeper than 3/,
  );
  assert.deepEqual(value(run("def main():\n    return [[[1]]]\n", { budgets: { maxValueDepth: 4 } })), [[[
    1,
  ]]]);
  failed(
    run('def main():\n    return "x" * 100\n', { budgets: { maxValueBytes: 101 } }),
    "resource",
    /more than 101 bytes/,
  );
  assert.equal(
    value(run('def main():\n    return "x" * 100\n', { budgets: { maxValueBytes: 102 } })),
    "x".repeat(100),
  );
  failed(
    run('def main():\n    return records.lookup(key="x" * 100)\n', { budgets: { maxValueBytes: 50 } }),
    "resource",
    /records\.lookup arguments/,
  );
});

Deno.test("program: interrupts and native failures", () => {
  let polls = 0;
  const o = run("def main():\n    n = 0\n    for i in range(100000000):\n        n += 1\n", {
    budgets: { maxExecutionSteps: 1e12 },
    interrupt: () => (++polls > 3 ? "deadline" : undefined),
  });
  assert.ok(!o.ok && o.kind === "interrupted" && o.code === "deadline");
  const denied = run('def main():\n    return records.lookup(key="a")\n', {
    native: () => {
      throw new NativeFailure("permission_denied");
    },
  });
  assert.ok(!denied.ok && denied.kind === "native" && denied.code === "permission_denied");
  let flag: string | undefined;
  const cancelled = run('def main():\n    return records.lookup(key="a")\n', {
    native: () => {
      flag = "cancelled";
      throw new ResourceError("cancelled", "Starlark computation cancelled: cancelled");
    },
    interrupt: () => flag,
  });
  assert.ok(!cancelled.ok && cancelled.kind === "interrupted" && cancelled.code === "cancelled");
  const broken = run('def main():\n    return records.lookup(key="a")\n', {
    native: () => new Uint8Array([99]),
  });
  failed(broken, "internal", /unknown tag/);
  const bug = run('def main():\n    return records.lookup(key="a")\n', {
    native: () => {
      throw new TypeError("host bug");
    },
  });
  failed(bug, "internal");
});

Deno.test("program: capability namespaces", () => {
  const env = buildCapabilityEnv([
    { name: "x.y.z", input: { kind: "struct", fields: [] } },
    { name: "x.w", input: { kind: "struct", fields: [] } },
    { name: "top", input: { kind: "struct", fields: [] } },
  ]);
  const x = env.predeclared.get("x");
  assert.ok(x instanceof Module);
  assert.deepEqual([...x.members.keys()], ["y", "w"]);
  assert.ok(env.predeclared.has("json") && env.predeclared.has("math") && env.predeclared.has("sum"));
  assert.ok(env.predeclared.has("top"));
  assert.throws(() =>
    buildCapabilityEnv([{ name: "a.b", input: { kind: "struct", fields: [] } }, {
      name: "a.b.c",
      input: { kind: "struct", fields: [] },
    }])
  );
  assert.throws(() =>
    buildCapabilityEnv([{ name: "a", input: { kind: "struct", fields: [] } }, {
      name: "a",
      input: { kind: "struct", fields: [] },
    }])
  );
  assert.throws(() => buildCapabilityEnv([{ name: "json.x", input: { kind: "struct", fields: [] } }]));
});

Deno.test("program: dialect options", () => {
  const src = "def main():\n    n = 0\n    while n < 3:\n        n += 1\n    return n\n";
  failed(run(src), "program", /while/);
  const o = runProgram({
    source: src,
    env: ENV,
    budgets: BUDGETS,
    maxMemoryBytes: 1 << 20,
    checkInterrupt: () => undefined,
    native: echo,
    dialect: { while: true },
  });
  assert.equal(value(o), 3);
});
