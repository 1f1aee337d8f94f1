/**
 * The Petstore document against a real, validating OpenAPI mock (prism): a program lists, creates and
 * reads pets through the capabilities `fromOpenAPI` made, and every request the handlers send must pass
 * prism's request validation (a request that breaks the document is answered 422 and fails the call).
 */
import assert from "node:assert/strict";
import { allowAll, Builder, CodeModeError } from "../../mod.ts";
import { fromOpenAPI } from "../../openapi.ts";
import { startPrism } from "./prism.ts";

const PETSTORE = new URL("../fixtures/petstore.yaml", import.meta.url).pathname;
const U = { id: "tester" };

Deno.test("openapi + prism: a program lists, creates and reads pets; prism validates every request", async () => {
  const prism = await startPrism(PETSTORE);
  const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
  try {
    const registered = await fromOpenAPI(PETSTORE, { builder, baseUrl: prism.url });
    assert.deepEqual(registered.capabilities, ["pets.list_pets", "pets.create_pets", "pets.show_pet_by_id"]);
    const server = await builder.build();
    try {
      assert.equal(
        server.describe("pets.create_pets").signature,
        "pets.create_pets(*, id: int, name: str, tag: str | None)",
      );
      const result = await server.execute(
        U,
        [
          "def main():",
          '    created = pets.create_pets(id=7, name="rex", tag="dog")',
          "    page = pets.list_pets(limit=2)",
          '    one = pets.show_pet_by_id(petId="7")',
          '    return {"created": created, "kinds": [type(p["id"]) for p in page["body"]], "one": sorted(one.keys())}',
          "",
        ].join("\n"),
      ) as Record<string, unknown>;
      assert.deepEqual(result.created, { body: null });
      assert.ok((result.kinds as string[]).length >= 1);
      assert.deepEqual(new Set(result.kinds as string[]), new Set(["int"]));
      assert.deepEqual(result.one, ["id", "name", "tag"]);

      // A request the document forbids (limit above its maximum of 100): prism answers 422.
      await assert.rejects(
        server.execute(U, "def main():\n    return pets.list_pets(limit=500)\n"),
        (e: unknown) =>
          e instanceof CodeModeError && e.code === "capability_failure" && /HTTP 422/.test(e.detail ?? ""),
      );
    } finally {
      await server.close();
    }
    const log = prism.log();
    // Prism checked all four requests: the three the program meant passed, only the forbidden one failed.
    assert.match(log, /\[HTTP SERVER\] post \/pets/);
    assert.match(log, /\[HTTP SERVER\] get \/pets\/7/);
    assert.equal(log.match(/The request passed the validation rules/g)?.length, 3, log);
    assert.equal(log.match(/Request did not pass the validation rules/g)?.length, 1, log);
    assert.match(log, /Violation: request\.query\.limit/);
  } finally {
    await prism.stop();
  }
});
