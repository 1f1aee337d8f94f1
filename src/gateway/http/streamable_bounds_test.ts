import assert from "node:assert/strict";
import { Catalog, type Identity, type JsonValue, makeResult, type Result } from "../domain/mod.ts";
import type { CallOptions } from "../pipeline/mod.ts";
import { StreamableEndpoint } from "./streamable.ts";

/** Each call sends `count` log lines of `bytes` bytes, then answers once released. */
class Chatty {
  readonly #release: Promise<void>;
  release!: () => void;
  constructor(readonly count: number, readonly bytes: number) {
    this.#release = new Promise((r) => (this.release = r));
  }
  listTools(): Catalog {
    return Catalog.EMPTY;
  }
  async callTool(
    _c: Identity,
    name: string,
    _a: JsonValue | undefined,
    options: CallOptions,
  ): Promise<Result> {
    for (let i = 0; i < this.count; i++) {
      options.notify?.({
        method: "notifications/message",
        params: { level: "info", data: "z".repeat(this.bytes) },
      });
    }
    await this.#release;
    return makeResult({ content: [{ type: "text", text: `done ${name}` }] });
  }
}

function call(endpoint: StreamableEndpoint, client: string, id: number): Promise<Response> {
  const request = new Request("http://127.0.0.1/mcp", { method: "POST" });
  const message = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "ds__x", arguments: {} } };
  return Promise.resolve(endpoint.answer(request, message, { id: client }, {}));
}

function events(body: string): string[] {
  return body.split("\n\n").filter((e) => e.startsWith("event: message"));
}

Deno.test("unread notifications are bounded per call and per client, dropped and counted; answers never", async () => {
  const surface = new Chatty(200, 1000);
  const dropped: string[] = [];
  const endpoint = new StreamableEndpoint({
    surface,
    maxQueuedPerCallBytes: 20_000,
    maxQueuedPerClientBytes: 30_000,
    onNotificationDropped: (client) => void dropped.push(client),
  });
  // Nobody reads while the calls run: alice's two calls share her 30 KB; bob has his own bounds.
  const responses = await Promise.all([
    call(endpoint, "alice", 1),
    call(endpoint, "alice", 2),
    call(endpoint, "bob", 3),
  ]);
  surface.release();
  const bodies = await Promise.all(responses.map((r) => r.text()));
  const [a1, a2, b] = bodies.map(events);
  const bytes = (list: string[]) => list.slice(0, -1).reduce((n, e) => n + e.length + 2, 0);
  assert.ok(bytes(a1) <= 20_000 && bytes(a2) <= 20_000 && bytes(b) <= 20_000);
  assert.ok(bytes(a1) + bytes(a2) <= 30_000, `alice had ${bytes(a1) + bytes(a2)} bytes queued`);
  assert.ok(bytes(b) > 15_000, "bob's bound is his own");
  for (const [list, id] of [[a1, 1], [a2, 2], [b, 3]] as const) {
    assert.ok(list.at(-1)!.includes(`"id":${id},"result"`), `call ${id} ends with its answer`);
  }
  const kept = a1.length + a2.length + b.length - 3;
  assert.equal(endpoint.droppedNotifications, 600 - kept);
  assert.equal(dropped.length, 600 - kept);
  assert.ok(dropped.includes("alice") && dropped.includes("bob"));

  // Once read, a client's bounds are free again.
  const later = events(await (await call(endpoint, "alice", 4)).text());
  assert.ok(bytes(later) > 15_000, `alice's next call had ${bytes(later)} bytes`);
  assert.ok(later.at(-1)!.includes(`"id":4,"result"`));
});
