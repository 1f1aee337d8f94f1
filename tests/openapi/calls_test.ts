/**
 * What the handlers send and refuse, against real loopback servers that count every request: calls go
 * only to the configured origin (not to the document's servers, not through a redirect to another
 * origin), credentials come from configuration and never reach the program or an error, and deadlines,
 * size caps, status failures and text bodies behave as documented.
 */
import assert from "node:assert/strict";
import { build, doc, failure, loopback, main, op } from "./helpers.ts";

const U = { id: "tester" };

Deno.test("openapi calls: the document's servers are ignored; only the base URL's origin is called", async () => {
  const api = loopback(() => Response.json({ name: "a" }));
  const trap = loopback();
  const document = doc({ "/items": { get: op("listItems") } }, { servers: [{ url: `${trap.url}/v1` }] });
  const { server } = await build(document, { baseUrl: `${api.url}/base/` });
  try {
    assert.deepEqual(await server.execute(U, main("items.list_items()")), { body: { name: "a" } });
    assert.equal(api.seen.length, 1);
    assert.equal(api.seen[0].url.pathname, "/base/items");
    assert.equal(trap.seen.length, 0);
  } finally {
    await server.close();
    await api.close();
    await trap.close();
  }
});

Deno.test("openapi calls: a redirect to another origin is refused; one within the origin is followed", async () => {
  const trap = loopback(() => Response.json({ stolen: true }));
  const api = loopback((req) => {
    if (req.url.pathname === "/away") {
      return new Response(null, { status: 302, headers: { location: `${trap.url}/x` } });
    }
    if (req.url.pathname === "/moved") {
      return new Response(null, { status: 307, headers: { location: "/here?x=1" } });
    }
    return Response.json({ at: req.url.pathname + req.url.search, method: req.method });
  });
  const document = doc({
    "/away": { get: op("away") },
    "/moved": { post: op("moved") },
  });
  const { server } = await build(document, { baseUrl: api.url, headers: { "X-Token": "sekrit-value" } });
  try {
    const f = await failure(server.execute(U, main("items.away()")));
    assert.equal(f.code, "capability_failure");
    assert.match(f.detail, /GET \/away: HTTP 302 redirects to another origin/);
    assert.equal(trap.seen.length, 0, "nothing reached the other origin");
    // 307 keeps the method; the same origin is followed, with the configured headers.
    assert.deepEqual(await server.execute(U, main("items.moved()")), {
      body: { at: "/here?x=1", method: "POST" },
    });
    assert.equal(api.seen.at(-1)!.headers.get("x-token"), "sekrit-value");
  } finally {
    await server.close();
    await api.close();
    await trap.close();
  }
});

Deno.test("openapi calls: credentials from configuration reach the API, never the program or an error", async () => {
  const token = "tok-9f8e7d6c5b4a";
  const key = "key-0123456789";
  const api = loopback((req) => {
    if (req.url.pathname === "/echo") {
      // A careless API that quotes the request back in its error body.
      return new Response(`denied: ${req.headers.get("authorization")} ${req.url.search}`, { status: 401 });
    }
    return Response.json({ auth: req.headers.get("authorization") === `Bearer ${token}` });
  });
  const document = doc({
    "/me": { get: op("me", {}, { type: "object", properties: { auth: { type: "boolean" } } }) },
    "/echo": { get: op("echo") },
    "/who": {
      get: op("who", {
        parameters: [
          { name: "X-Api-Key", in: "header", schema: { type: "string" } },
          { name: "api_key", in: "query", schema: { type: "string" } },
        ],
      }),
    },
  });
  const env = (name: string) => ({ API_TOKEN: token, API_KEY: key } as Record<string, string>)[name];
  const { server } = await build(document, {
    baseUrl: api.url,
    query: { api_key: "${API_KEY}" },
    headers: { Authorization: "Bearer ${API_TOKEN}", "X-Api-Key": "${API_KEY}" },
    env,
  });
  try {
    assert.deepEqual(await server.execute(U, main("items.me()")), { auth: true });
    assert.equal(api.seen[0].url.searchParams.get("api_key"), key);
    const f = await failure(server.execute(U, main("items.echo()")));
    assert.equal(f.code, "capability_failure");
    assert.match(
      f.detail,
      /GET \/echo answered HTTP 401: denied: \[redacted\] \?api_key=\[redacted\]/,
    );
    for (const text of [f.detail, f.message]) {
      assert.ok(!text.includes(token) && !text.includes(key), text);
    }
    // A program passing the credential's own header or query name does not replace the configured value.
    await server.execute(U, main('items.who(X_Api_Key="forged", api_key="forged")'));
    const who = api.seen.at(-1)!;
    assert.equal(who.headers.get("x-api-key"), key);
    assert.deepEqual(who.url.searchParams.getAll("api_key"), [key]);
    // Nor does any description carry them.
    const described = JSON.stringify(["items.me", "items.echo", "items.who"].map((n) => server.describe(n)));
    assert.ok(!described.includes(token) && !described.includes(key));
  } finally {
    await server.close();
    await api.close();
  }
});

Deno.test("openapi calls: basic auth, and a missing ${VAR} is refused naming the variable", async () => {
  const api = loopback((req) => Response.json({ auth: req.headers.get("authorization") }));
  const document = doc({ "/me": { get: op("me") } });
  const { server } = await build(document, {
    baseUrl: api.url,
    basicAuth: { username: "ann", password: "${PW}" },
    env: (name) => name === "PW" ? "p@ss:wörd" : undefined,
  });
  try {
    const expected = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("ann:p@ss:wörd")))}`;
    assert.deepEqual(await server.execute(U, main("items.me()")), { body: { auth: expected } });
  } finally {
    await server.close();
    await api.close();
  }
  const f = await failure(
    build(document, { baseUrl: api.url, headers: { "X-Key": "${NOPE_UNSET}" }, env: () => undefined }),
  );
  assert.equal(f.code, "invalid_registration");
  assert.match(f.message, /header X-Key uses \$\{NOPE_UNSET\}, but NOPE_UNSET is not set/);
});

Deno.test("openapi calls: deadline, size cap, non-2xx excerpt and text bodies", async () => {
  const api = loopback(async (req) => {
    switch (req.url.pathname) {
      case "/slow":
        await new Promise((r) => setTimeout(r, 3_000));
        return Response.json({});
      case "/big":
        return Response.json({ data: "x".repeat(5_000) });
      case "/missing":
        return new Response(`no such item ${"z".repeat(1_000)}`, { status: 404 });
      default:
        return new Response("plain words", { headers: { "content-type": "text/plain" } });
    }
  });
  const document = doc({
    "/slow": { get: op("slow") },
    "/big": { get: op("big") },
    "/missing": { get: op("missing") },
    "/text": {
      get: {
        operationId: "text",
        tags: ["items"],
        responses: { "200": { description: "t", content: { "text/plain": {} } } },
      },
    },
  });
  const { server } = await build(document, { baseUrl: api.url, timeoutMs: 300, maxResponseBytes: 1_000 });
  try {
    const started = performance.now();
    const slow = await failure(server.execute(U, main("items.slow()")));
    assert.match(slow.detail, /GET \/slow: the call was cancelled or passed its deadline/);
    assert.ok(performance.now() - started < 2_500, "the per-call deadline ended the call");
    const big = await failure(server.execute(U, main("items.big()")));
    assert.match(big.detail, /GET \/big: the answer is larger than 1000 bytes/);
    const missing = await failure(server.execute(U, main("items.missing()")));
    assert.match(missing.detail, /: GET \/missing answered HTTP 404: no such item z+…$/);
    assert.ok(missing.detail.split("HTTP 404: ")[1].length <= 120, missing.detail);
    assert.deepEqual(await server.execute(U, main("items.text()")), { body: "plain words" });
  } finally {
    await server.close();
    await api.close();
  }
});

Deno.test("openapi calls: arguments go back on the wire under the document's names", async () => {
  const api = loopback((req) =>
    req.url.pathname === "/stamp"
      ? Response.json({ "created-at": "2026-01-01", "item-id": 5, extra: 1 })
      : Response.json({
        path: req.url.pathname,
        query: [...req.url.searchParams].map(([k, v]) => `${k}=${v}`),
        header: req.headers.get("x-request-id"),
        type: req.headers.get("content-type"),
        body: req.body === "" ? null : JSON.parse(req.body),
      })
  );
  const document = doc({
    "/things/{thing-id}": {
      parameters: [{ name: "thing-id", in: "path", required: true, schema: { type: "string" } }],
      put: op("updateThing", {
        parameters: [
          { name: "X-Request-ID", in: "header", schema: { type: "string" } },
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["display-name"],
                properties: { "display-name": { type: "string" }, size: { type: "integer" } },
              },
            },
          },
        },
      }),
    },
    "/stamp": {
      get: op("stamp", { parameters: [{ name: "session", in: "cookie", schema: { type: "string" } }] }, {
        type: "object",
        properties: { "created-at": { type: "string", format: "date-time" }, "item-id": { type: "integer" } },
      }),
    },
    "/lists": {
      post: op("addList", {
        parameters: [{ name: "size", in: "query", schema: { type: "integer" } }],
        requestBody: {
          content: {
            "application/json": { schema: { type: "object", properties: { size: { type: "integer" } } } },
          },
        },
      }),
    },
  });
  const { server } = await build(document, { baseUrl: api.url });
  try {
    assert.equal(
      server.describe("items.update_thing").signature,
      "items.update_thing(*, thing_id: str, X_Request_ID: str | None, tags: list[str] | None, display_name: str, size: int | None)",
    );
    const r = await server.execute(
      U,
      main('items.update_thing(thing_id="a/../b c", X_Request_ID="r1", tags=["x", "y"], display_name="Box")'),
    ) as { body: Record<string, unknown> };
    assert.deepEqual(r.body, {
      path: "/things/a%2F..%2Fb%20c",
      query: ["tags=x", "tags=y"],
      header: "r1",
      type: "application/json",
      body: { "display-name": "Box" },
    });
    // The body's `size` clashes with the query parameter `size`: the body is passed whole, as body=.
    assert.equal(
      server.describe("items.add_list").signature,
      "items.add_list(*, size: int | None, body: {size?: int | None} | None)",
    );
    // Result keys that are not identifiers reach the program under their identifier forms.
    assert.deepEqual(await server.execute(U, main('items.stamp(session="a b")')), {
      created_at: "2026-01-01",
      item_id: 5,
    });
    assert.equal(api.seen.at(-1)!.headers.get("cookie"), "session=a%20b");
    const l = await server.execute(U, main('items.add_list(size=1, body={"size": 2})')) as {
      body: Record<string, unknown>;
    };
    assert.deepEqual([l.body.query, l.body.body], [["size=1"], { size: 2 }]);
  } finally {
    await server.close();
    await api.close();
  }
});

Deno.test("openapi calls: readOnly keeps GET and HEAD; include and exclude filter by tag, path and operationId", async () => {
  const document = doc({
    "/a": { get: op("getA"), post: op("postA"), delete: op("deleteA") },
    "/b/{id}": {
      get: op("getB", {
        tags: ["bees"],
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
      }),
    },
  });
  const names = async (settings: Record<string, unknown>) => {
    const { server, registered } = await build(document, { baseUrl: "http://127.0.0.1:9", ...settings });
    await server.close();
    return registered.capabilities;
  };
  assert.deepEqual(await names({}), ["items.get_a", "items.post_a", "items.delete_a", "bees.get_b"]);
  assert.deepEqual(await names({ readOnly: true }), ["items.get_a", "bees.get_b"]);
  assert.deepEqual(await names({ include: ["bees"] }), ["bees.get_b"]);
  assert.deepEqual(await names({ include: ["/b/*"] }), ["bees.get_b"]);
  assert.deepEqual(await names({ exclude: ["*A"] }), ["bees.get_b"]);
  assert.deepEqual(await names({ include: ["items"], exclude: ["delete?"] }), [
    "items.get_a",
    "items.post_a",
  ]);
});
