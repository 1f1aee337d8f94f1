/** RFC 9728 metadata document, its two well-known paths, and the challenges that point to it. */
import assert from "node:assert/strict";
import { ProtectedResource, refusal, resourceMetadataUrl } from "./mod.ts";

const resource = new ProtectedResource({
  resource: "https://gw.example.test/mcp",
  authorizationServers: ["https://auth.example.test"],
  scopesSupported: ["mcp", "tools:read"],
  requiredScopes: ["mcp"],
});

Deno.test("metadata: the path-suffixed URL inserts the well-known prefix before the resource's path", () => {
  assert.equal(
    resourceMetadataUrl("https://gw.example.test/mcp"),
    "https://gw.example.test/.well-known/oauth-protected-resource/mcp",
  );
  assert.equal(
    resourceMetadataUrl("https://gw.example.test:8443/a/b/"),
    "https://gw.example.test:8443/.well-known/oauth-protected-resource/a/b",
  );
  assert.equal(
    resourceMetadataUrl("https://gw.example.test/"),
    "https://gw.example.test/.well-known/oauth-protected-resource",
  );
});

Deno.test("metadata: served at the root and path-suffixed forms with the RFC 9728 fields", async () => {
  assert.ok(resource.serves("/.well-known/oauth-protected-resource"));
  assert.ok(resource.serves("/.well-known/oauth-protected-resource/mcp"));
  assert.ok(!resource.serves("/.well-known/oauth-protected-resource/other"));
  const r = resource.response("GET");
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("content-type"), "application/json");
  assert.deepEqual(await r.json(), {
    resource: "https://gw.example.test/mcp",
    authorization_servers: ["https://auth.example.test"],
    scopes_supported: ["mcp", "tools:read"],
    bearer_methods_supported: ["header"],
  });
  assert.equal(resource.response("POST").status, 405);
  assert.equal(await resource.response("HEAD").text(), "");
});

Deno.test("metadata: challenges carry resource_metadata, the RFC 6750 error and the required scope", () => {
  const url = 'resource_metadata="https://gw.example.test/.well-known/oauth-protected-resource/mcp"';
  assert.equal(resource.challenge(refusal("missing", "no bearer token")), `Bearer ${url}, scope="mcp"`);
  assert.equal(
    resource.challenge(refusal("invalid_token", 'the "token" has expired')),
    `Bearer ${url}, error="invalid_token", error_description="the 'token' has expired", scope="mcp"`,
  );
  assert.match(resource.challenge(refusal("insufficient_scope", "x")), /error="insufficient_scope"/);
  assert.equal(resource.challenge(refusal("unknown_subject", "x")), `Bearer ${url}, scope="mcp"`);
});
