import assert from "node:assert/strict";
import { capFetch } from "./http_cap.ts";
import { oversizedAnswer } from "./frame_cap.ts";
import { DownstreamSession } from "./session.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** A stream of `head`, then `bytes` bytes of `x`, then `tail`, in 64 KiB pieces. */
function bigBody(head: string, bytes: number, tail: string): ReadableStream<Uint8Array> {
  let left = bytes;
  let stage = 0;
  return new ReadableStream({
    pull(controller) {
      if (stage === 0) {
        controller.enqueue(encoder.encode(head));
        stage = 1;
      } else if (left > 0) {
        const n = Math.min(left, 65536);
        controller.enqueue(encoder.encode("x".repeat(n)));
        left -= n;
      } else {
        controller.enqueue(encoder.encode(tail));
        controller.close();
      }
    },
  });
}

Deno.test("capFetch: JSON and SSE answers over the cap are replaced by an error answer for their id", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    const json = { "content-type": "application/json" };
    const sse = { "content-type": "text/event-stream" };
    switch (path) {
      case "/small":
        return new Response(`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`, { headers: json });
      case "/big":
        return new Response(bigBody(`{"jsonrpc":"2.0","result":{"t":"`, 20 * MiB, `"},"id":7}`), {
          headers: json,
        });
      case "/sse": {
        const small = (id: number) => `event: message\ndata: {"jsonrpc":"2.0","id":${id},"result":{}}\n\n`;
        const parts = [
          small(1),
          `event: message\r\ndata: {"jsonrpc":"2.0","id":9,"result":{"t":"`,
          "x".repeat(3 * MiB),
          `"}}\r\n\r\n`,
          small(2),
          `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${
            "y".repeat(2 * MiB)
          }"}}\n\n`,
          small(4),
        ];
        return new Response(ReadableStream.from(parts.map((p) => encoder.encode(p))), { headers: sse });
      }
      default:
        return new Response("not found", { status: 404 });
    }
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const seen: [string | number, number][] = [];
  const capped = capFetch(fetch, () => MiB, (id, bytes) => void seen.push([id, bytes]));
  const post = (path: string, id: number) =>
    capped(`${base}${path}`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call" }),
    });
  try {
    assert.deepEqual(await (await post("/small", 3)).json(), { jsonrpc: "2.0", id: 3, result: { ok: true } });
    assert.equal(seen.length, 0);

    assert.deepEqual(await (await post("/big", 7)).json(), oversizedAnswer(7));
    assert.equal(seen.length, 1);
    assert.equal(seen[0][0], 7);
    assert.ok(seen[0][1] > MiB && seen[0][1] < 2 * MiB, `stopped reading at ${seen[0][1]} bytes`);

    const events = await (await post("/sse", 1)).text();
    assert.ok(events.includes(`"id":1,"result":{}`));
    assert.ok(events.includes(`"id":2,"result":{}`));
    assert.ok(events.includes(`"id":4,"result":{}`));
    assert.ok(events.includes(`data: ${JSON.stringify(oversizedAnswer(9))}\n\n`));
    assert.ok(!events.includes("xxxx") && !events.includes("yyyy"), "an oversized event was passed on");
    assert.ok(events.length < 4096);
    assert.deepEqual(seen.slice(1).map(([id]) => id), [9]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an http downstream's 30 MB answer ends its call with 'result too large'; the session serves on", async () => {
  let streamed = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    if (request.method !== "POST") return new Response(null, { status: 405 });
    const message = await request.json();
    const json = (result: unknown) => Response.json({ jsonrpc: "2.0", id: message.id, result });
    switch (message.method) {
      case "initialize":
        return json({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "big-http", version: "1" },
        });
      case "tools/list":
        return json({ tools: [{ name: "big", inputSchema: { type: "object" } }] });
      case "tools/call": {
        if (message.params.name !== "big") return json({ content: [{ type: "text", text: "small" }] });
        const body = bigBody(
          `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`,
          30 * MiB,
          `"}]}}`,
        );
        // Count what the gateway actually pulled from this body.
        const counted = body.pipeThrough(
          new TransformStream({
            transform(c, ctl) {
              streamed += c.length;
              ctl.enqueue(c);
            },
          }),
        );
        return new Response(counted, { headers: { "content-type": "application/json" } });
      }
      default:
        return message.id === undefined ? new Response(null, { status: 202 }) : json({});
    }
  });
  const session = await DownstreamSession.open(
    {
      name: "big",
      transport: "http",
      url: `http://127.0.0.1:${server.addr.port}/mcp`,
      headers: {},
      secrets: {},
      secretEnv: {},
      sessionMode: "shared",
      pool: 1,
    },
    { hostEnv: () => undefined, maxResultBytes: () => MiB },
    10_000,
  );
  try {
    let truncated = 0;
    const result = await session.callTool("big", {}, { clientId: "alice", onTruncated: () => truncated++ });
    assert.equal(result.isError, true);
    assert.match(
      JSON.stringify(result.content),
      /result too large: more than \d+ bytes exceeds the limit of 1048576/,
    );
    assert.equal(truncated, 1);
    // The body was not read to its end: the gateway stopped soon after the cap.
    assert.ok(streamed < 12 * MiB, `the gateway pulled ${streamed} bytes of a 30 MB body`);
    const next = await session.callTool("small", {}, { clientId: "alice" });
    assert.deepEqual(next.content, [{ type: "text", text: "small" }]);
  } finally {
    await session.close();
    await server.shutdown();
  }
});
