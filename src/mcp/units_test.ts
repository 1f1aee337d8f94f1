/**
 * Unit tests of the MCP layer's small pieces: bearer tokens and key checks, host parsing, argument
 * checks, error texts, command-line parsing and the deferred service.
 */
import assert from "node:assert/strict";
import { CodeModeError } from "../errors.ts";
import { CANCELLED_TEXT, ERROR_TEXTS, errorText } from "./errors.ts";
import { isLoopbackHostname, splitHost } from "./http.ts";
import { bearerToken, KeyChecker, parseApiKeys } from "./keys.ts";
import { defaultAllowedHosts, parseServeArgs, serveAllowedHosts, UsageError } from "./serve_cli.ts";
import { authInfoSubject, deferredService, type Service } from "./service.ts";
import { singleStringArgument } from "./tools.ts";

Deno.test("bearerToken accepts one Bearer token, case-insensitive scheme", () => {
  assert.equal(bearerToken("Bearer abc.def-123"), "abc.def-123");
  assert.equal(bearerToken("bearer   tok  "), "tok");
  assert.equal(bearerToken(null), undefined);
  assert.equal(bearerToken("Basic abc"), undefined);
  assert.equal(bearerToken("Bearer"), undefined);
  assert.equal(bearerToken("Bearer a b"), undefined);
});

Deno.test("KeyChecker finds the subject of a key and nothing else", async () => {
  const checker = new KeyChecker(parseApiKeys("a=aaaaaaaaaaaaaaaa1\nb=bbbbbbbbbbbbbbbb2,"));
  assert.equal(checker.size, 2);
  assert.equal(await checker.check("aaaaaaaaaaaaaaaa1"), "a");
  assert.equal(await checker.check("bbbbbbbbbbbbbbbb2"), "b");
  assert.equal(await checker.check("bbbbbbbbbbbbbbbb"), undefined);
  assert.equal(await checker.check(""), undefined);
  assert.throws(() => new KeyChecker([{ subject: "x", key: "has space in it ok?" }]), /printable ASCII/);
});

Deno.test("host parsing and loopback names", () => {
  assert.deepEqual(splitHost("Example.COM:8080"), { name: "example.com", port: "8080" });
  assert.deepEqual(splitHost("[::1]:99"), { name: "[::1]", port: "99" });
  assert.deepEqual(splitHost("localhost"), { name: "localhost", port: undefined });
  for (const h of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "LOCALHOST"]) {
    assert.ok(isLoopbackHostname(h), h);
  }
  for (const h of ["0.0.0.0", "10.0.0.1", "localhost.evil.com", "::", "128.0.0.1"]) {
    assert.ok(!isLoopbackHostname(h), h);
  }
  assert.deepEqual(defaultAllowedHosts("127.0.0.1", 8787), [
    "localhost:8787",
    "127.0.0.1:8787",
    "[::1]:8787",
  ]);
  assert.deepEqual(defaultAllowedHosts("10.0.0.5", 80), ["10.0.0.5:80"]);
  // A wildcard server answers local clients by their loopback names; remote names are configured.
  assert.deepEqual(defaultAllowedHosts("0.0.0.0", 80), ["localhost:80", "127.0.0.1:80", "[::1]:80"]);
  // Configured hosts add to the defaults, never replace them (more allowed is more).
  assert.deepEqual(serveAllowedHosts("127.0.0.1", 8787, ["mcp.example.com", "localhost:8787"]), [
    "localhost:8787",
    "127.0.0.1:8787",
    "[::1]:8787",
    "mcp.example.com",
  ]);
  assert.deepEqual(serveAllowedHosts("10.0.0.5", 80, []), ["10.0.0.5:80"]);
});

Deno.test("singleStringArgument wants exactly the tool's one string", () => {
  assert.equal(singleStringArgument("execute", { source: "x" }), "x");
  assert.equal(singleStringArgument("execute", { source: "" }), "");
  assert.equal(singleStringArgument("execute", { query: "x" }), undefined);
  assert.equal(singleStringArgument("search_api", { query: "x", more: 1 }), undefined);
  assert.equal(singleStringArgument("describe_api", ["name"]), undefined);
  assert.equal(singleStringArgument("describe_api", null), undefined);
  assert.equal(singleStringArgument("describe_api", { name: 1 }), undefined);
});

Deno.test("errorText: fixed texts, approved details only, cancellation", () => {
  assert.equal(
    errorText(new CodeModeError("permission_denied", "x", { detail: "leak" })),
    "permission denied",
  );
  assert.equal(
    errorText(new CodeModeError("invalid_arguments", "x", { detail: " bad key " })),
    "invalid arguments: bad key",
  );
  assert.equal(
    errorText(new CodeModeError("capability_failure", "x", { detail: "\u0000\u0001" })),
    "capability failed",
  );
  assert.equal(errorText(new Error("boom")), ERROR_TEXTS.internal);
  assert.equal(errorText("string thrown"), ERROR_TEXTS.internal);
  const ac = new AbortController();
  ac.abort();
  assert.equal(errorText(new DOMException("aborted", "AbortError"), ac.signal), CANCELLED_TEXT);
  assert.equal(
    errorText(new CodeModeError("resource_limit", "deadline"), ac.signal),
    ERROR_TEXTS.resource_limit,
  );
});

Deno.test("parseServeArgs", () => {
  assert.deepEqual(parseServeArgs([]), {
    http: undefined,
    path: "/mcp",
    allowedHosts: [],
    allowedOrigins: [],
    subject: "local",
    executor: undefined,
    help: false,
  });
  const a = parseServeArgs([
    "--http=[::1]:0",
    "--allowed-host",
    "a.example",
    "--allowed-origin=https://b.example",
    "--subject",
    "me",
    "--executor",
    "inline",
    "--path",
    "/x",
  ]);
  assert.deepEqual(a.http, { hostname: "::1", port: 0 });
  assert.deepEqual([a.allowedHosts, a.allowedOrigins, a.subject, a.executor, a.path], [
    ["a.example"],
    ["https://b.example"],
    "me",
    "inline",
    "/x",
  ]);
  assert.equal(parseServeArgs(["-h"]).help, true);
  for (
    const bad of [["--http"], ["--http", "1.2.3.4"], ["--http", "h:70000"], ["--executor", "x"], [
      "--subject=",
    ], ["x"]]
  ) {
    assert.throws(() => parseServeArgs(bad), UsageError, bad.join(" "));
  }
});

Deno.test("deferredService waits for the service, and turns a failed start into internal errors", async () => {
  const { promise, resolve } = Promise.withResolvers<Service>();
  const deferred = deferredService(promise);
  const pending = deferred.search("q");
  resolve({
    search: (q) => ({ results: [{ name: "a.b", signature: "a.b()", summary: q }], truncated: false }),
    describe: () => {
      throw new CodeModeError("not_found", "nope");
    },
    execute: () => Promise.resolve(7),
  });
  assert.equal((await pending).results[0].summary, "q");
  await assert.rejects(async () => await deferred.describe("x"), { code: "not_found" });
  assert.equal(await deferred.execute({ id: "s" }, "src"), 7);

  const failed = deferredService(Promise.reject(new Error("probe failed: secret path")));
  await assert.rejects(async () => await failed.search("q"), { code: "internal" });
});

Deno.test("authInfoSubject maps clientId by default, or through a function", () => {
  const info = { token: "t", clientId: "alice", scopes: [], extra: { tenant: "acme" } };
  const signal = new AbortController().signal;
  assert.deepEqual(authInfoSubject().resolve({ authInfo: info, signal }), { id: "alice" });
  assert.equal(authInfoSubject().resolve({ signal }), undefined);
  const mapped = authInfoSubject((i) => ({ id: `${i.extra?.tenant}:${i.clientId}` }));
  assert.deepEqual(mapped.resolve({ authInfo: info, signal }), { id: "acme:alice" });
});
