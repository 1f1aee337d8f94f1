/**
 * Host-side hardening through `Server.execute` with the real engine, on both built-in executors:
 * null-prototype handler inputs and authorization maps, output conversion that reads own properties only
 * and refuses an oversized result without walking it, the one rule for invalid UTF-8 crossing the
 * boundary (one U+FFFD per invalid byte, and keys that collide that way refused, never merged), and
 * model-visible details with every control, bidirectional and invisible code point escaped.
 */
import assert from "node:assert/strict";
import {
  type AuthorizationInput,
  Builder,
  type CodeModeError,
  isCodeModeError,
  type Server,
  t,
} from "../../mod.ts";
import { errorText } from "../../mcp.ts";
import { convertOutput } from "../../src/core/output.ts";

type Kind = "inline" | "worker";
const KINDS: readonly Kind[] = ["inline", "worker"];
const U = { id: "user-1" };
const main = (body: string) => `def main():\n${body.split("\n").map((l) => "    " + l).join("\n")}\n`;

const BIG_OUTPUT = t.struct({ items: t.list(t.int()) });
const BIG_ITEMS = Array.from({ length: 2_000_000 }, (_, i) => i & 0x7f);
const SECRET = "db password is hunter2";
// Code points a model-visible text must never carry raw (the unit test of text.ts covers every one).
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Co}\p{Cn}]/u;

interface World {
  server: Server;
  inputs: Record<string, unknown>[];
  auth: AuthorizationInput[];
  /** `performance.now()` just before the big-result handler returned. */
  returnedAt: number[];
}

async function world(kind: Kind): Promise<World> {
  const inputs: Record<string, unknown>[] = [];
  const auth: AuthorizationInput[] = [];
  const returnedAt: number[] = [];
  const builder = new Builder({
    executor: kind,
    authorizer: {
      authorize(input) {
        auth.push(input);
      },
    },
  });
  builder.register({
    name: "tags.put",
    summary: "Store tags",
    input: t.struct({ m: t.dict(t.int()), s: t.optional(t.str()) }),
    output: t.struct({ n: t.int(), s: t.optional(t.str()) }),
    handler: (input) => {
      inputs.push(input);
      return { n: Object.keys(input.m).length, s: input.s };
    },
  });
  builder.register({
    name: "proto.fields",
    summary: "Fields named like Object.prototype members",
    input: t.struct({
      ["__proto__"]: t.optional(t.int()),
      constructor: t.str(),
      toString: t.optional(t.str()),
    }),
    output: t.struct({ ["__proto__"]: t.optional(t.int()), constructor: t.str() }),
    handler: (input) => {
      inputs.push(input);
      return { ["__proto__"]: input.__proto__, constructor: input.constructor };
    },
  });
  builder.register({
    name: "big.list",
    summary: "A result far beyond maxValueBytes",
    output: BIG_OUTPUT,
    handler: () => {
      returnedAt.push(performance.now());
      return { items: BIG_ITEMS };
    },
  });
  builder.register({
    name: "bad.getter",
    summary: "A result whose getter throws",
    output: t.struct({ key: t.str() }),
    handler: () => ({
      get key(): string {
        throw new Error(SECRET);
      },
    }),
  });
  return { server: await builder.build(), inputs, auth, returnedAt };
}

async function failure(p: Promise<unknown>, code: string): Promise<CodeModeError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isCodeModeError(e), `expected ${code}, got ${e}`);
    assert.equal(e.code, code, `${e.code}: ${e.message}`);
    return e;
  }
  throw new Error(`expected ${code}, got a value`);
}

for (const kind of KINDS) {
  Deno.test(`${kind}: handler inputs and authorization maps have no prototype; program keys are data`, async () => {
    const w = await world(kind);
    try {
      const out = await w.server.execute(
        U,
        main('return tags.put(m={"__proto__": 1, "constructor": 2, "toString": 3, "hasOwnProperty": 4})'),
      );
      assert.deepEqual(out, { n: 4 });
      for (const view of [w.inputs[0], w.auth[0].arguments]) {
        assert.equal(Object.getPrototypeOf(view), null);
        const m = view.m as Record<string, unknown>;
        assert.equal(Object.getPrototypeOf(m), null);
        assert.deepEqual(Object.entries(m), [["__proto__", 1], ["constructor", 2], ["toString", 3], [
          "hasOwnProperty",
          4,
        ]]);
        assert.equal(typeof m.toString, "number");
      }
      assert.ok(Object.isFrozen(w.auth[0].arguments.m));
      // Struct fields named like prototype members, through binding, authorization and conversion.
      const fields = await w.server.execute(U, main('return proto.fields(__proto__=7, constructor="c")'));
      assert.deepEqual(Object.entries(fields as object), [["__proto__", 7], ["constructor", "c"]]);
      assert.match(w.server.describe("proto.fields").signature, /__proto__.*constructor.*toString/);
      for (const view of [w.inputs[1], w.auth[1].arguments]) {
        assert.equal(Object.getPrototypeOf(view), null);
        assert.deepEqual(Object.entries(view), [["__proto__", 7], ["constructor", "c"]]);
      }
      // The final value keeps such keys as own data on an ordinary object.
      const final = await w.server.execute(U, main('return {"__proto__": {"polluted": True}}')) as object;
      assert.deepEqual(Object.keys(final), ["__proto__"]);
      assert.equal(Object.getPrototypeOf(final), Object.prototype);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: invalid UTF-8 crossing the boundary becomes one U+FFFD per invalid byte`, async () => {
    const w = await world(kind);
    try {
      // "€"[0:2] is the truncated sequence E2 82; "é"[1:] the lone continuation byte A9.
      const out = await w.server.execute(U, main('return tags.put(m={"é"[1:]: 1}, s="a" + "€"[0:2] + "b")'));
      assert.deepEqual(out, { n: 1, s: "a\ufffd\ufffdb" });
      assert.deepEqual(Object.keys(w.inputs[0].m as object), ["\ufffd"]);
      assert.equal(w.inputs[0].s, "a\ufffd\ufffdb");
      // The same rule as json.encode inside the program (and in starlark-go).
      assert.deepEqual(
        await w.server.execute(U, main('s = "a" + "é"[1:] + "€"[0:2]\nreturn [s, json.encode(s)]')),
        ["a\ufffd\ufffd\ufffd", '"a\\ufffd\\ufffd\\ufffd"'],
      );
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: keys that only invalid UTF-8 told apart are refused, never merged`, async () => {
    const w = await world(kind);
    try {
      const args = await failure(
        w.server.execute(U, main('return tags.put(m={"é"[1:]: 1, "ü"[1:]: 2})')),
        "invalid_arguments",
      );
      assert.equal(
        args.detail,
        "tags.put: argument m has two keys that are the same text once invalid UTF-8 is replaced by U+FFFD: " +
          '"\\xa9" and "\\xbc"',
      );
      assert.equal(w.auth.length, 0, "neither the authorizer nor the handler ran");
      assert.equal(w.inputs.length, 0);
      const final = await failure(
        w.server.execute(U, main('return {"ok": [{"é"[1:]: 1, "ü"[1:]: 2}]}')),
        "invalid_program",
      );
      assert.match(final.detail ?? "", /^final value: a dict has two keys .* "\\xa9" and "\\xbc"$/);
      // The sandbox was not blamed: the next execution runs normally.
      assert.deepEqual(await w.server.execute(U, main('return tags.put(m={"a": 1})')), { n: 1 });
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: a 2,000,000-item result is refused without walking it`, async () => {
    const w = await world(kind);
    try {
      // Baseline: one full conversion of the same list with room for it (an O(n) walk, what the host did
      // before). The refusal is O(1), so even on a loaded machine the two stay far apart; the best of
      // three refusals filters out a scheduler pause.
      const t0 = performance.now();
      convertOutput("big.list", BIG_OUTPUT, { items: BIG_ITEMS }, 32, 2 ** 40);
      const walk = performance.now() - t0;
      let latency = Infinity;
      for (let i = 0; i < 3; i++) {
        const e = await failure(w.server.execute(U, main("return big.list()")), "resource_limit");
        const rejectedAt = performance.now();
        assert.match(e.message, /encodes to more than 1048576 bytes/);
        latency = Math.min(latency, rejectedAt - w.returnedAt[i]);
      }
      assert.ok(
        latency * 5 < walk,
        `refused ${latency.toFixed(2)} ms after the handler returned; walk ${walk.toFixed(1)} ms`,
      );
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: a result whose getter throws is capability_failure and nothing leaks`, async () => {
    const w = await world(kind);
    try {
      const e = await failure(w.server.execute(U, main("return bad.getter()")), "capability_failure");
      assert.equal(e.detail, "bad.getter: invalid result");
      assert.equal(e.cause, undefined, "the trusted cause stays on the host");
      assert.doesNotMatch(e.message, /hunter2/);
      assert.equal(errorText(e), "capability failed: bad.getter: invalid result");
    } finally {
      await w.server.close();
    }
  });

  Deno.test(`${kind}: model-visible details escape controls, bidi overrides and invisible characters`, async () => {
    const w = await world(kind);
    try {
      const e = await failure(
        w.server.execute(U, main('fail("a\\u202eb\\u2066c\\u2028d\\x1be\\u200bf\\u0085g\\ufe0fh")')),
        "invalid_program",
      );
      const detail = e.detail ?? "";
      assert.doesNotMatch(detail, UNSAFE, detail);
      for (const escaped of ["\\u202e", "\\u2066", "\\u2028", "\\x1b", "\\u200b", "\\x85", "\\ufe0f"]) {
        assert.ok(detail.includes(escaped), `${escaped} in ${detail}`);
      }
      assert.doesNotMatch(errorText(e), UNSAFE);
      const key = await failure(
        w.server.execute(U, main('return tags.put(m={"k\\u2067": "v"})')),
        "invalid_arguments",
      );
      assert.ok((key.detail ?? "").includes("\\u2067"), key.detail);
      assert.doesNotMatch(key.detail ?? "", UNSAFE);
    } finally {
      await w.server.close();
    }
  });
}
