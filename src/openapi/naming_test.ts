import assert from "node:assert/strict";
import { globMatcher, type Operation, snakeCase } from "./domain.ts";
import { capabilityName, nameOperations } from "./naming.ts";

function operation(method: string, path: string, operationId?: string, tags: string[] = []): Operation {
  return { method, path, operationId, tags, parameters: [], response: { kind: "none" }, pointer: "#" };
}

Deno.test("openapi naming: operationIds become snake_case under the first tag", () => {
  const cases: [string, string][] = [
    ["listPets", "list_pets"],
    ["showPetById", "show_pet_by_id"],
    ["getHTTPInfo", "get_http_info"],
    ["get-user.profile", "get_user_profile"],
    ["already_snake", "already_snake"],
    ["V2ListItems", "v2_list_items"],
  ];
  for (const [id, leaf] of cases) {
    assert.equal(snakeCase(id), leaf, id);
    assert.equal(capabilityName(operation("get", "/x", id, ["Pet Store", "other"])), `pet_store.${leaf}`, id);
  }
  // Without an id: method and path; without a tag: the api root; keywords and digits made identifiers.
  assert.equal(capabilityName(operation("get", "/pets/{petId}")), "api.get_pets_pet_id");
  assert.equal(capabilityName(operation("post", "/2fa", "for", ["3d"])), "_3d.for_");
});

Deno.test("openapi naming: every colliding operation is refused naming the others; reserved roots too", () => {
  const ops = [
    operation("get", "/a", "getA", ["t"]),
    operation("get", "/b", "get_a", ["t"]),
    operation("get", "/c", "get-a", ["t"]),
    operation("get", "/d", "fine", ["t"]),
    operation("get", "/e", "x", ["len"]),
  ];
  const { named, diagnostics } = nameOperations(ops);
  assert.deepEqual(named.map((n) => n.name), ["t.fine"]);
  assert.equal(diagnostics.length, 4);
  assert.match(diagnostics[0], /GET \/e \(x\) maps to len\.x, whose root "len" is a reserved/);
  assert.equal(
    diagnostics[1],
    "operation GET /a (getA) maps to t.get_a, as GET /b (get_a), GET /c (get-a) does",
  );
});

Deno.test("openapi globs: * spans slashes, ? one character, the rest literal", () => {
  const m = globMatcher("/pets/*");
  assert.ok(m("/pets/{petId}") && m("/pets/a/b") && !m("/pet"));
  assert.ok(globMatcher("list?ets")("listPets"));
  assert.ok(!globMatcher("a.b")("axb"), "a dot is literal");
  assert.ok(!globMatcher("pets")("pets2"), "whole-string match");
});
