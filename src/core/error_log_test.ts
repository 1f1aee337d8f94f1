/**
 * The default failure log: a host without `onError` learns of a throwing handler on stderr, once per
 * capability per minute, with the cause; a model's own mistakes are not logged; `onError` replaces it.
 */
import assert from "node:assert/strict";
import { Builder, type ErrorEvent, t } from "../../mod.ts";
import { allowAll } from "../../authz.ts";
import { FAILURE_LOG_INTERVAL_MS, firstFailureLog } from "./error_log.ts";

function event(name: string, phase: ErrorEvent["phase"], code: ErrorEvent["code"], cause?: unknown) {
  return {
    error: Object.assign(new Error(`${name}: capability failed`), { code, cause }),
    code,
    phase,
    executionId: "x1",
    subject: { id: "u" },
    capability: { id: name, name },
  } as unknown as ErrorEvent;
}

Deno.test("failure log: each capability's first failure, then at most one a minute, with its cause", () => {
  const lines: [string][] = [];
  let clock = 0;
  const hook = firstFailureLog((m) => lines.push([m]), () => clock);
  const boom = new Error("database is down");
  for (let i = 0; i < 50; i++) hook(event("records.boom", "handler", "capability_failure", boom));
  hook(event("records.other", "result", "capability_failure", new TypeError("bad")));
  assert.equal(lines.length, 2);
  assert.match(lines[0][0], /^codemode: capability records\.boom failed: its handler threw/);
  assert.match(lines[0][0], /onError/);
  assert.match(lines[0][0], /Cause: Error: database is down\n {4}at /, "the cause with its stack");
  assert.match(lines[1][0], /records\.other failed: its handler returned a value/);
  clock += FAILURE_LOG_INTERVAL_MS - 1;
  hook(event("records.boom", "handler", "internal", boom));
  assert.equal(lines.length, 2);
  clock += 1;
  hook(event("records.boom", "handler", "internal", boom));
  assert.equal(lines.length, 3);
  // The program's doing, not the host's: never logged.
  hook(event("records.x", "authorize", "permission_denied"));
  hook(event("records.y", "handler", "invalid_arguments"));
  hook(event("records.z", "handler", "permission_denied"));
  hook({ ...event("records.w", "execute", "invalid_program"), capability: undefined } as ErrorEvent);
  assert.equal(lines.length, 3);
  hook(event("records.p", "authorize", "policy_failure", new Error("opa crashed")));
  assert.equal(lines.length, 4);
});

Deno.test("failure log: a hostile thrown value is described without running any of its code", () => {
  const lines: string[] = [];
  const hook = firstFailureLog((m) => lines.push(m), () => 0);
  let trapped = 0;
  const count = () => {
    trapped++;
    return undefined;
  };
  const proxy = new Proxy(new Error("x"), {
    get: count,
    getPrototypeOf: () => (count(), null),
    getOwnPropertyDescriptor: count,
    ownKeys: () => (count(), []),
  });
  const getters = Object.create(Error.prototype, {
    message: { get: () => (trapped++, "m") },
    stack: { get: () => (trapped++, "s") },
  });
  const chained = Object.assign(new Error("outer"), { cause: proxy });
  // A real error whose name became a getter after it was made: its stack is not formatted through it.
  const late = new Error("late");
  Object.defineProperty(late, "name", { get: () => (trapped++, "N") });
  hook(event("h.late", "handler", "capability_failure", late));
  hook(event("h.proxy", "handler", "capability_failure", proxy));
  hook(event("h.getters", "handler", "capability_failure", getters));
  hook(event("h.chained", "handler", "internal", chained));
  hook(event("h.string", "handler", "capability_failure", "plain text"));
  assert.equal(trapped, 0);
  assert.match(lines[1], /Cause: \[an object the host does not inspect/);
  assert.match(lines[2], /Cause: Error: \(no message\)$/);
  assert.match(lines[3], /Error: outer[\s\S]*caused by \[an object the host does not inspect/);
  assert.match(lines[0 + 4], /Cause: plain text$/);
  assert.match(lines[0], /h\.late failed: its handler threw .*Cause: Error: late$/);
});

async function runBoom(onError?: (e: ErrorEvent) => void): Promise<string> {
  const builder = new Builder({
    authorizer: allowAll(),
    executor: "inline",
    ...(onError ? { onError } : {}),
  });
  builder.register({
    id: "records.boom",
    name: "records.boom",
    summary: "Always fails",
    input: t.struct({}),
    output: t.struct({ ok: t.bool() }),
    handler: () => {
      throw new Error("secret connection string is wrong");
    },
  });
  const server = await builder.build();
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void printed.push(args.map((a) => String(a)).join(" "));
  try {
    for (let i = 0; i < 3; i++) {
      await server.execute({ id: "u" }, "def main():\n    return records.boom()\n").catch(() => {});
    }
  } finally {
    console.error = original;
    await server.close();
  }
  return printed.join("\n");
}

Deno.test("failure log: a built server without onError logs a throwing handler once; onError replaces it", async () => {
  const printed = await runBoom();
  assert.equal(printed.match(/capability records\.boom failed/g)?.length, 1, printed);
  assert.match(printed, /secret connection string is wrong/);
  const events: ErrorEvent[] = [];
  assert.equal(await runBoom((e) => events.push(e)), "");
  assert.ok(events.some((e) => e.phase === "handler"));
});
