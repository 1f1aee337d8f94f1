/**
 * Documents `fromOpenAPI` must refuse or survive: Swagger 2.0, invalid documents (every problem with its
 * JSON pointer), references outside the document (never fetched), deep and cyclic `$ref`s, huge enums,
 * names that collide or are reserved; OpenAPI 3.1 is accepted.
 */
import assert from "node:assert/strict";
import { allowAll, Builder, type Server } from "../../mod.ts";
import { fromOpenAPI, OpenAPIDocumentError } from "../../openapi.ts";
import { build, doc, failure, loopback, op } from "./helpers.ts";

const BASE = "http://127.0.0.1:9";

/** The result fields of a capability, as `name: type`. */
function output(server: Server, name: string): string[] {
  return server.describe(name).output.map((f) => `${f.name}: ${f.type}`);
}

async function refusal(document: Record<string, unknown>) {
  return await failure(
    fromOpenAPI(document, { builder: new Builder({ authorizer: allowAll() }), baseUrl: BASE }),
  );
}

Deno.test("openapi documents: Swagger 2.0 and other versions are refused clearly", async () => {
  const swagger = await refusal({ swagger: "2.0", info: { title: "t", version: "1" }, paths: {} });
  assert.equal(swagger.code, "invalid_registration");
  assert.match(
    swagger.message,
    /#\/swagger: Swagger "2\.0" documents are not supported: convert the document to OpenAPI 3\.0 or 3\.1/,
  );
  const other = await refusal({ openapi: "4.0.0", info: { title: "t", version: "1" }, paths: {} });
  assert.match(other.message, /#\/openapi: OpenAPI 3\.0\.x or 3\.1\.x expected, found "4\.0\.0"/);
});

Deno.test("openapi documents: every validation problem is reported with its JSON pointer", async () => {
  const document = {
    openapi: "3.0.3",
    info: { title: "t" },
    paths: { "/a/{id}": { get: { responses: { "200": { description: 5 } } } } },
  };
  let caught: unknown;
  try {
    await fromOpenAPI(document, { builder: new Builder({ authorizer: allowAll() }), baseUrl: BASE });
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof OpenAPIDocumentError, String(caught));
  const pointers = caught.problems.map((p) => p.pointer);
  assert.ok(pointers.includes("#/info"), pointers.join(" "));
  assert.ok(pointers.includes("#/paths/~1a~1{id}/get/responses/200/description"), pointers.join(" "));
  assert.match(caught.message, /#\/info: must have required property 'version'/);
  // The caller's object is not changed by validation.
  assert.deepEqual(document.info, { title: "t" });
});

Deno.test("openapi documents: a reference outside the document is refused and never fetched", async () => {
  const trap = loopback(() => Response.json({ type: "string" }));
  try {
    const document = doc({ "/a": { get: op("getA", {}, { $ref: `${trap.url}/schema.json` }) } });
    const f = await refusal(document);
    assert.equal(f.code, "invalid_registration");
    assert.match(
      f.message,
      /#\/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema\/\$ref: references "http:\/\/127\.0\.0\.1:\d+\/schema\.json" outside the document/,
    );
    const broken = await refusal(
      doc({ "/a": { get: op("getA", {}, { $ref: "#/components/schemas/Nope" }) } }),
    );
    assert.match(broken.message, /#\/components\/schemas\/Nope/);
    assert.equal(trap.seen.length, 0);
  } finally {
    await trap.close();
  }
});

Deno.test("openapi documents: deep and cyclic $ref chains build, the cycles typed json", async () => {
  const schemas: Record<string, unknown> = {
    Node: {
      type: "object",
      properties: { name: { type: "string" }, next: { $ref: "#/components/schemas/Node" } },
    },
    Ping: { type: "object", properties: { pong: { $ref: "#/components/schemas/Pong" } } },
    Pong: { type: "object", properties: { ping: { $ref: "#/components/schemas/Ping" } } },
    Loop: { allOf: [{ $ref: "#/components/schemas/Loop" }] },
  };
  // A chain of 100 references, each an object holding the next.
  for (let i = 0; i < 100; i++) {
    schemas[`C${i}`] = i === 99
      ? { type: "integer" }
      : { type: "object", properties: { v: { $ref: `#/components/schemas/C${i + 1}` } } };
  }
  const document = doc({
    "/node": { get: op("getNode", {}, { $ref: "#/components/schemas/Node" }) },
    "/ping": { get: op("getPing", {}, { $ref: "#/components/schemas/Ping" }) },
    "/loop": { get: op("getLoop", {}, { $ref: "#/components/schemas/Loop" }) },
    "/chain": { get: op("getChain", {}, { $ref: "#/components/schemas/C0" }) },
  }, { components: { schemas } });
  const { server } = await build(document, { baseUrl: BASE });
  try {
    // The cycle is unrolled once, then cut.
    assert.deepEqual(output(server, "items.get_node"), ["name: str", "next: {name?: str, next?: json}"]);
    assert.deepEqual(output(server, "items.get_ping"), ["pong: {ping?: {pong?: json}}"]);
    assert.deepEqual(output(server, "items.get_loop"), ["body: json"]);
    // Past the mapped depth the chain becomes json instead of a type nested 100 deep.
    const chain = output(server, "items.get_chain")[0];
    assert.equal(chain.split("{v?:").length - 1, 16, chain);
    assert.match(chain, /\{v\?: json\}/);
  } finally {
    await server.close();
  }
});

Deno.test("openapi documents: a reference chain deeper than the validator follows is refused clearly", async () => {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < 600; i++) {
    schemas[`C${i}`] = i === 599
      ? { type: "integer" }
      : { type: "object", properties: { v: { $ref: `#/components/schemas/C${i + 1}` } } };
  }
  const f = await refusal(
    doc({ "/chain": { get: op("getChain", {}, { $ref: "#/components/schemas/C0" }) } }, {
      components: { schemas },
    }),
  );
  assert.equal(f.code, "invalid_registration");
  assert.match(f.message, /Maximum dereference depth \(500\) exceeded/);
  assert.ok(f.message.length < 600, `${f.message.length} characters`);
});

Deno.test("openapi documents: a huge enum builds with a bounded description", async () => {
  const values = Array.from({ length: 200_000 }, (_, i) => `value_${i}`);
  const document = doc({
    "/e": {
      get: op("pick", {
        parameters: [{ name: "kind", in: "query", schema: { type: "string", enum: values } }],
      }),
    },
  });
  const { server } = await build(document, { baseUrl: BASE });
  try {
    const d = server.describe("items.pick");
    assert.equal(d.signature, "items.pick(*, kind: str | None)");
    assert.ok(d.description.length < 1_000, `${d.description.length} characters`);
    assert.match(d.description, /kind \(query\): one of "value_0", "value_1"/);
  } finally {
    await server.close();
  }
});

Deno.test("openapi documents: broken Unicode and huge texts in the metadata still build, bounded", async () => {
  const document = doc({
    "/s\ud800": {
      get: op("odd", {
        summary: `  bad \udc00 summary ${"s".repeat(5_000)}`,
        description: `lone \ud800 ${"d".repeat(100_000)}`,
        tags: [`t\ud800${"g".repeat(500)}`],
        parameters: [{ name: "q\udc00", in: "query", description: "x\ud800", schema: { type: "string" } }],
      }),
    },
  });
  const { server, registered } = await build(document, { baseUrl: BASE });
  try {
    const [name] = registered.capabilities;
    const d = server.describe(name);
    assert.ok(d.summary.isWellFormed() && d.description.isWellFormed());
    assert.ok(
      d.summary.length <= 200 && d.description.length < 2_000,
      `${d.summary.length} ${d.description.length}`,
    );
    assert.equal(d.signature, `${name}(*, q_: str | None)`);
  } finally {
    await server.close();
  }
});

Deno.test("openapi documents: colliding names and reserved roots are refused, both operations named", async () => {
  const collide = await refusal(doc({
    "/a": { get: op("getThing") },
    "/b": { get: op("get_thing") },
    "/c": { get: op("ok") },
  }));
  assert.equal(collide.code, "invalid_registration");
  assert.match(
    collide.message,
    /operation GET \/a \(getThing\) maps to items\.get_thing, as GET \/b \(get_thing\) does/,
  );
  assert.match(
    collide.message,
    /operation GET \/b \(get_thing\) maps to items\.get_thing, as GET \/a \(getThing\) does/,
  );
  // Leaving one of them out settles it.
  const settled = await build(doc({ "/a": { get: op("getThing") }, "/b": { get: op("get_thing") } }), {
    baseUrl: BASE,
    exclude: ["/b"],
  });
  await settled.server.close();
  assert.deepEqual([settled.registered.capabilities, settled.registered.filtered], [["items.get_thing"], 1]);
  const reserved = await refusal(doc({ "/j": { get: op("parse", { tags: ["json"] }) } }));
  assert.match(
    reserved.message,
    /operation GET \/j \(parse\) maps to json\.parse, whose root "json" is a reserved Starlark name/,
  );
});

Deno.test("openapi documents: OpenAPI 3.1 is accepted; unnamed and untagged operations get derived names", async () => {
  const document = {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/users/{userId}/posts": {
        get: {
          parameters: [{ name: "userId", in: "path", required: true, schema: { type: "integer" } }],
          responses: {
            "200": {
              description: "ok",
              content: {
                "application/json": {
                  schema: { type: "object", properties: { title: { type: ["string", "null"] } } },
                },
              },
            },
          },
        },
      },
      "/upload": {
        post: {
          operationId: "upload",
          requestBody: { content: { "multipart/form-data": { schema: { type: "object" } } } },
          responses: { "204": { description: "done" } },
        },
      },
    },
  };
  const { server, registered } = await build(document, { baseUrl: BASE });
  try {
    assert.deepEqual(registered.capabilities, ["api.get_users_user_id_posts"]);
    assert.deepEqual(registered.skipped, [{
      operation: "#/paths/~1upload/post",
      reason: "its request body is not JSON (multipart/form-data)",
    }]);
    assert.equal(
      server.describe("api.get_users_user_id_posts").signature,
      "api.get_users_user_id_posts(*, userId: int)",
    );
    assert.deepEqual(output(server, "api.get_users_user_id_posts"), ["title: str | None"]);
  } finally {
    await server.close();
  }
});
