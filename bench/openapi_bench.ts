/**
 * Building code mode from a generated OpenAPI document of 2,000 operations (target: ≤ 1 s from the
 * parsed document to a built server: validation, naming, typing and the catalog), and searching it.
 */
import { allowAll, Builder, type Executor } from "../mod.ts";
import { fromOpenAPI } from "../openapi.ts";
import { generatedDocument } from "./_openapi_doc.ts";

const noExecutor: Executor = { run: () => Promise.resolve(null), close: () => Promise.resolve() };
const document = generatedDocument();

async function buildServer() {
  const builder = new Builder({ authorizer: allowAll(), executor: noExecutor });
  await fromOpenAPI(document, { builder, baseUrl: "http://127.0.0.1:9" });
  return await builder.build();
}

Deno.bench(
  { name: "openapi: 2,000 operations, document to built server", group: "build", n: 10 },
  async () => {
    await (await buildServer()).close();
  },
);

const server = await buildServer();
const QUERIES = ["delete shipping invoice", "list open tickets in support", "create a booking for travel"];
let i = 0;
Deno.bench({ name: "openapi: search over 2,000 operations", group: "search" }, () => {
  server.search(QUERIES[i++ % QUERIES.length]);
});
