/**
 * `deno task serve --openapi`: the real serve CLI over stdio, driven by the MCP SDK client, serving the
 * Petstore document against prism (which validates every request); and its refusals.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { childEnv, cliArgs, runCli, startHttpCli } from "../mcp/cli_helpers.ts";
import { connectClient } from "../mcp/http_helpers.ts";
import { startPrism } from "./prism.ts";

const PETSTORE = new URL("../fixtures/petstore.yaml", import.meta.url).pathname;

Deno.test("serve --openapi: a model searches, describes and runs a program over the Petstore API", async () => {
  const prism = await startPrism(PETSTORE);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: cliArgs([
      "--openapi",
      PETSTORE,
      "--base-url",
      prism.url,
      "--header",
      "X-Trace: ${PETSTORE_TRACE}",
      "--executor",
      "inline",
    ]),
    cwd: new URL("../../", import.meta.url).pathname,
    env: childEnv({ PETSTORE_TRACE: "trace-1234" }),
    stderr: "pipe",
  });
  const client = new Client({ name: "openapi-cli-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const search = await client.callTool({ name: "search_api", arguments: { query: "list pets" } });
    const results = (search.structuredContent as { results: { name: string }[] }).results;
    assert.equal(results[0].name, "pets.list_pets");
    const run = await client.callTool({
      name: "execute",
      arguments: {
        source:
          'def main():\n    pets.create_pets(id=1, name="rex")\n    return pets.show_pet_by_id(petId="1")["name"]\n',
      },
    });
    assert.equal(run.isError ?? false, false, JSON.stringify(run.content));
    assert.equal(typeof (run.structuredContent as { result: unknown }).result, "string");
  } finally {
    await client.close();
    await prism.stop();
  }
  assert.match(prism.log(), /\[HTTP SERVER\] post \/pets/);
  assert.doesNotMatch(prism.log(), /Request did not pass the validation rules/);
});

Deno.test("serve --openapi --http: the same catalog over Streamable HTTP, read-only", async () => {
  const prism = await startPrism(PETSTORE);
  const cli = await startHttpCli([
    "--openapi",
    PETSTORE,
    "--base-url",
    prism.url,
    "--read-only",
    "--executor",
    "inline",
  ]);
  try {
    const client = await connectClient(cli.url);
    try {
      const search = await client.callTool({ name: "search_api", arguments: { query: "pets" } });
      const names = (search.structuredContent as { results: { name: string }[] }).results.map((r) => r.name);
      // --read-only: the POST operation is not served.
      assert.deepEqual(names.sort(), ["pets.list_pets", "pets.show_pet_by_id"]);
      const run = await client.callTool({
        name: "execute",
        arguments: { source: 'def main():\n    return pets.show_pet_by_id(petId="3")["name"]\n' },
      });
      assert.equal(run.isError ?? false, false, JSON.stringify(run.content));
    } finally {
      await client.close();
    }
  } finally {
    assert.equal(await cli.stop(), 0);
    await prism.stop();
  }
  assert.doesNotMatch(prism.log(), /Request did not pass the validation rules/);
});

Deno.test("serve --openapi: a bad document or missing --base-url exits 2 with the reason", async () => {
  const missing = await runCli(["--openapi", PETSTORE]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--openapi needs --base-url/);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/v2.yaml`, "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n");
    const v2 = await runCli(["--openapi", `${dir}/v2.yaml`, "--base-url", "http://127.0.0.1:9"]);
    assert.equal(v2.code, 2);
    assert.match(v2.stderr, /#\/swagger: Swagger "2\.0" documents are not supported/);
    const none = await runCli([
      "--openapi",
      PETSTORE,
      "--base-url",
      "http://127.0.0.1:9",
      "--include",
      "nothing*",
    ]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no operation of .* is served/);
    const unset = await runCli([
      "--openapi",
      PETSTORE,
      "--base-url",
      "http://127.0.0.1:9",
      "--header",
      "X-K: ${UNSET_VAR_O1}",
    ]);
    assert.equal(unset.code, 2);
    assert.match(unset.stderr, /header X-K uses \$\{UNSET_VAR_O1\}, but UNSET_VAR_O1 is not set/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
