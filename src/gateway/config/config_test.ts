import assert from "node:assert/strict";
import { isCodeModeError } from "../../errors.ts";
import {
  ConfigError,
  type ConfigProblem,
  formatProblems,
  loadConfig,
  readConfigFile,
  sameDownstream,
  secretValues,
} from "./mod.ts";

const ENV: Record<string, string> = {
  ALICE_KEY: "alice-key-0123456789abcdef",
  BOB_KEY: "bob-key-0123456789abcdef00",
  MEMORY_TOKEN: "memory-token-value-42",
  SHORT: "abc",
};
const env = (name: string) => ENV[name];

const GOOD = `
listen: 127.0.0.1:8790            # non-loopback needs at least one client
allowed_origins: []
call_timeout_ms: 30000
clients:
  - { id: alice, api_key_env: ALICE_KEY }
downstreams:
  memory:
    transport: stdio
    command: deno
    args: [run, -A, "npm:@modelcontextprotocol/server-memory@2026.8.31"]
    env: { MEMORY_FILE_PATH: data/memory.json }
    env_passthrough: [NODE_EXTRA_CA_CERTS]
    secrets: { SERVICE_TOKEN: MEMORY_TOKEN }
    session_mode: shared
    pool: 4
  web:
    transport: http
    url: http://127.0.0.1:9000/mcp
    headers: { X-Tenant: acme }
    secrets: { Authorization: MEMORY_TOKEN }
policy:
  default: deny
  clients:
    alice: { allow: ["memory__*"], deny: ["memory__delete_entities"] }
redaction:
  max_result_bytes: 1048576
  patterns: [{ name: aws_access_key, regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }]
audit: { sink: "file:audit.jsonl", buffer: 4096, high_water: 3072, fsync_ms: 1000, security_block_ms: 2000 }
breaker: { failure_threshold: 5, open_ms: 30000 }
`;

function problems(text: string): ConfigProblem[] {
  const r = loadConfig(text, env);
  assert.ok(!r.ok, "expected problems");
  return [...r.problems];
}

function expectProblem(text: string, path: string, message: RegExp, line?: number): void {
  const list = problems(text);
  const hit = list.find((p) => p.path === path && message.test(p.message));
  assert.ok(hit, `no problem at ${path} matching ${message}; got:\n${formatProblems(list)}`);
  if (line !== undefined) assert.equal(hit.line, line, `line of ${path}`);
}

Deno.test("config: the issue's example validates into the typed config", () => {
  const r = loadConfig(GOOD, env);
  assert.ok(r.ok, r.ok ? "" : formatProblems(r.problems));
  const c = r.config;
  assert.deepEqual(c.listen, { host: "127.0.0.1", port: 8790, loopback: true });
  assert.deepEqual(c.clients, [{ id: "alice", apiKeyEnv: "ALICE_KEY", apiKey: ENV.ALICE_KEY }]);
  const [memory, web] = c.downstreams;
  assert.ok(memory.transport === "stdio" && web.transport === "http");
  assert.deepEqual(memory.args, ["run", "-A", "npm:@modelcontextprotocol/server-memory@2026.8.31"]);
  assert.deepEqual(memory.secrets, { SERVICE_TOKEN: ENV.MEMORY_TOKEN });
  assert.deepEqual(memory.secretEnv, { SERVICE_TOKEN: "MEMORY_TOKEN" });
  assert.deepEqual(memory.envPassthrough, ["NODE_EXTRA_CA_CERTS"]);
  assert.equal(memory.pool, 4);
  assert.deepEqual(web.headers, { "X-Tenant": "acme" });
  assert.deepEqual(c.policy.clients.alice, { allow: ["memory__*"], deny: ["memory__delete_entities"] });
  assert.deepEqual(c.redaction.patterns, [{
    name: "aws_access_key",
    regex: "AKIA[0-9A-Z]{16}",
    anchor: "AKIA",
  }]);
  assert.deepEqual(c.audit, {
    sink: { kind: "file", path: "audit.jsonl" },
    buffer: 4096,
    highWater: 3072,
    fsyncMs: 1000,
    securityBlockMs: 2000,
  });
  assert.deepEqual(c.breaker, { failureThreshold: 5, openMs: 30000 });
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.downstreams));
  assert.deepEqual(secretValues(c).sort(), [ENV.ALICE_KEY, ENV.MEMORY_TOKEN].sort());
});

Deno.test("config: defaults for a minimal file", () => {
  const r = loadConfig("downstreams:\n  m: { transport: stdio, command: deno }\n", env);
  assert.ok(r.ok, r.ok ? "" : formatProblems(r.problems));
  assert.equal(r.config.listen.port, 8790);
  assert.equal(r.config.callTimeoutMs, 30000);
  assert.deepEqual(r.config.audit.sink, { kind: "stdout" });
  assert.equal(r.config.redaction.maxResultBytes, 1048576);
  assert.equal(r.config.downstreams[0].sessionMode, "shared");
  assert.deepEqual(r.config.policy.clients, {});
  assert.deepEqual(r.config.authRateLimit, { burst: 10, refillPerMinute: 10 });
  const set = loadConfig(
    "downstreams:\n  m: { transport: stdio, command: deno }\nauth_rate_limit: { burst: 0, refill_per_minute: 30 }\n",
    env,
  );
  assert.ok(set.ok, set.ok ? "" : formatProblems(set.problems));
  assert.deepEqual(set.config.authRateLimit, { burst: 0, refillPerMinute: 30 });
  assert.deepEqual(r.config.allowedHosts, []);
  const hosts = loadConfig(
    "downstreams:\n  m: { transport: stdio, command: deno }\nallowed_hosts: [GW.example.com, 'gw.example.com:443']\n",
    env,
  );
  assert.ok(hosts.ok, hosts.ok ? "" : formatProblems(hosts.problems));
  assert.deepEqual(hosts.config.allowedHosts, ["gw.example.com", "gw.example.com:443"]);
});

Deno.test("config: every problem is reported at once, with its path and line", () => {
  const text = [
    "listen: 0.0.0.0:8790", // 1: non-loopback without clients
    "call_timeout_ms: fast", // 2: bad type
    "colour: blue", // 3: unknown key
    "downstreams:", // 4
    "  memory:", // 5
    "    transport: stdio", // 6
    "    command: deno", // 7
    "    pool: 0", // 8: out of range
    "    secrets: { TOKEN: MISSING_VAR }", // 9: missing env var
    "    url: http://x", // 10: not allowed for stdio
    "policy:", // 11
    "  clients:", // 12
    "    alice: { allow: [files__*] }", // 13: unknown client, unknown downstream
  ].join("\n");
  const list = problems(text);
  const at = (path: string) => list.filter((p) => p.path === path);
  assert.match(at("listen")[0].message, /non-loopback .* needs at least one client/);
  assert.equal(at("listen")[0].line, 1);
  assert.match(at("call_timeout_ms")[0].message, /must be an integer/);
  assert.equal(at("call_timeout_ms")[0].line, 2);
  assert.match(at("colour")[0].message, /unknown key "colour"/);
  assert.equal(at("colour")[0].line, 3);
  assert.match(at("downstreams.memory.pool")[0].message, /between 1 and 1024/);
  assert.equal(at("downstreams.memory.pool")[0].line, 8);
  assert.match(at("downstreams.memory.secrets.TOKEN")[0].message, /MISSING_VAR .* is not set/);
  assert.match(at("downstreams.memory.url")[0].message, /unknown key "url"/);
  assert.match(at("policy.clients.alice")[0].message, /unknown client "alice"/);
  assert.match(at("policy.clients.alice.allow[0]")[0].message, /unknown downstream "files"/);
  assert.ok(list.length >= 8, formatProblems(list));
  // In file order.
  const lines = list.map((p) => p.line);
  assert.deepEqual(lines, [...lines].sort((a, b) => a - b));
});

const DS = "downstreams:\n  m: { transport: stdio, command: deno }\n";

const BAD: [string, string, string, RegExp][] = [
  ["YAML syntax", "listen: [unclosed\n", "", /YAML/],
  ["an empty file", "# nothing here\n", "", /empty/],
  ["duplicate key", DS + "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n", "", /unique/],
  ["root not a mapping", "- a\n- b\n", "", /must be a mapping/],
  ["missing downstreams", "listen: 127.0.0.1:1\n", "downstreams", /is required/],
  ["bad listen", DS + "listen: localhost\n", "listen", /HOST:PORT/],
  ["port out of range", DS + "listen: 127.0.0.1:70000\n", "listen", /HOST:PORT/],
  ["non-loopback ipv6", DS + "listen: '[::]:8790'\n", "listen", /needs at least one client/],
  [
    "origin with a path",
    DS + "allowed_origins: [https://a.example/x]\n",
    "allowed_origins[0]",
    /not an origin/,
  ],
  ["a host with a path", DS + "allowed_hosts: [gw.example.com/x]\n", "allowed_hosts[0]", /not a host/],
  ["hosts not a list", DS + "allowed_hosts: gw.example.com\n", "allowed_hosts", /list/],
  ["clients not a list", DS + "clients: { alice: x }\n", "clients", /must be a list/],
  ["client missing key env", DS + "clients: [{ id: alice }]\n", "clients[0].api_key_env", /is required/],
  [
    "client env var unset",
    DS + "clients: [{ id: a, api_key_env: NOPE }]\n",
    "clients[0].api_key_env",
    /NOPE .* is not set/,
  ],
  [
    "short api key",
    DS + "clients: [{ id: a, api_key_env: SHORT }]\n",
    "clients[0].api_key_env",
    /at least 16/,
  ],
  [
    "duplicate client id",
    DS + "clients: [{ id: a, api_key_env: ALICE_KEY }, { id: a, api_key_env: BOB_KEY }]\n",
    "clients[1].id",
    /duplicate client id "a"/,
  ],
  [
    "two clients, one key",
    DS + "clients: [{ id: a, api_key_env: ALICE_KEY }, { id: b, api_key_env: ALICE_KEY }]\n",
    "clients[1].api_key_env",
    /same API key as client a/,
  ],
  [
    "bad client id",
    DS + "clients: [{ id: 'a b', api_key_env: ALICE_KEY }]\n",
    "clients[0].id",
    /letters, digits/,
  ],
  [
    "unknown transport",
    "downstreams:\n  m: { transport: grpc }\n",
    "downstreams.m.transport",
    /one of "stdio", "http"/,
  ],
  [
    "stdio without command",
    "downstreams:\n  m: { transport: stdio }\n",
    "downstreams.m.command",
    /is required/,
  ],
  ["http without url", "downstreams:\n  m: { transport: http }\n", "downstreams.m.url", /is required/],
  ["http bad url", "downstreams:\n  m: { transport: http, url: 'ftp://x' }\n", "downstreams.m.url", /http/],
  [
    "downstream with separator",
    "downstreams:\n  a__b: { transport: stdio, command: x }\n",
    "downstreams.a__b",
    /without "__"/,
  ],
  [
    "downstream ending in _",
    "downstreams:\n  a_: { transport: stdio, command: x }\n",
    "downstreams.a_",
    /not ending/,
  ],
  [
    "args not strings",
    "downstreams:\n  m: { transport: stdio, command: x, args: [[1]] }\n",
    "downstreams.m.args[0]",
    /must be a string/,
  ],
  [
    "bad session mode",
    "downstreams:\n  m: { transport: stdio, command: x, session_mode: pooled }\n",
    "downstreams.m.session_mode",
    /per_client/,
  ],
  [
    "short secret",
    "downstreams:\n  m: { transport: stdio, command: x, secrets: { T: SHORT } }\n",
    "downstreams.m.secrets.T",
    /shorter than 8/,
  ],
  [
    "reserved header",
    "downstreams:\n  m: { transport: http, url: 'http://x', headers: { Host: y } }\n",
    "downstreams.m.headers.Host",
    /may set/,
  ],
  [
    "header injection",
    'downstreams:\n  m: { transport: http, url: "http://x", headers: { X-A: "a\\r\\nX-B: b" } }\n',
    "downstreams.m.headers.X-A",
    /line breaks/,
  ],
  [
    "bad env name",
    "downstreams:\n  m: { transport: stdio, command: x, env: { 'A-B': c } }\n",
    "downstreams.m.env.A-B",
    /not an environment variable name/,
  ],
  ["policy default allow", DS + "policy: { default: allow }\n", "policy.default", /"deny"/],
  [
    "bare wildcard rule",
    DS + "clients: [{ id: a, api_key_env: ALICE_KEY }]\npolicy: { clients: { a: { allow: ['*'] } } }\n",
    "policy.clients.a.allow[0]",
    /"\*" is not a namespaced tool pattern/,
  ],
  [
    "rule without separator",
    DS + "clients: [{ id: a, api_key_env: ALICE_KEY }]\npolicy: { clients: { a: { deny: [m] } } }\n",
    "policy.clients.a.deny[0]",
    /namespaced/,
  ],
  [
    "unknown rule key",
    DS + "clients: [{ id: a, api_key_env: ALICE_KEY }]\npolicy: { clients: { a: { permit: [] } } }\n",
    "policy.clients.a.permit",
    /unknown key/,
  ],
  [
    "bad regex",
    DS + "redaction: { patterns: [{ name: p, regex: '([a-z', anchor: a }] }\n",
    "redaction.patterns[0].regex",
    /not a valid regular expression/,
  ],
  [
    "empty-matching regex",
    DS + "redaction: { patterns: [{ name: p, regex: 'a*', anchor: a }] }\n",
    "redaction.patterns[0].regex",
    /empty string/,
  ],
  [
    "pattern without anchor",
    DS + "redaction: { patterns: [{ name: p, regex: 'ab' }] }\n",
    "redaction.patterns[0].anchor",
    /is required/,
  ],
  [
    "duplicate pattern",
    DS + "redaction: { patterns: [{ name: p, regex: a, anchor: a }, { name: p, regex: b, anchor: b }] }\n",
    "redaction.patterns[1].name",
    /duplicate/,
  ],
  ["zero result cap", DS + "redaction: { max_result_bytes: 0 }\n", "redaction.max_result_bytes", /between 1/],
  ["bad sink", DS + "audit: { sink: syslog }\n", "audit.sink", /file:PATH/],
  [
    "high water above buffer",
    DS + "audit: { buffer: 10, high_water: 20 }\n",
    "audit.high_water",
    /must not exceed buffer/,
  ],
  [
    "breaker threshold zero",
    DS + "breaker: { failure_threshold: 0 }\n",
    "breaker.failure_threshold",
    /between 1/,
  ],
  ["float timeout", DS + "call_timeout_ms: 1.5\n", "call_timeout_ms", /integer/],
  [
    "no refill of the auth rate limit",
    DS + "auth_rate_limit: { refill_per_minute: 0 }\n",
    "auth_rate_limit.refill_per_minute",
    /between 1/,
  ],
  [
    "unknown auth rate limit key",
    DS + "auth_rate_limit: { per_second: 1 }\n",
    "auth_rate_limit.per_second",
    /unknown/,
  ],
  ["unresolved alias", DS + "allowed_origins: *nothing\n", "allowed_origins", /unresolved alias/],
];

for (const [name, text, path, message] of BAD) {
  Deno.test(`config: rejects ${name}`, () => expectProblem(text, path, message));
}

Deno.test("config: problems never quote secret values", () => {
  const text = DS + "clients: [{ id: a, api_key_env: ALICE_KEY }, { id: b, api_key_env: ALICE_KEY }]\n" +
    "  \ndownstreams2: x\n";
  const all = formatProblems(problems(text));
  assert.ok(!all.includes(ENV.ALICE_KEY));
});

Deno.test("config: readConfigFile throws a typed ConfigError listing every problem", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/gw.yaml`;
    await Deno.writeTextFile(path, "listen: nowhere\nbogus: 1\n");
    const err = await readConfigFile(path, env).then(() => undefined, (e) => e);
    assert.ok(err instanceof ConfigError);
    assert.ok(isCodeModeError(err, "invalid_registration"));
    assert.ok(err.problems.length >= 3, err.message); // listen, bogus, downstreams
    assert.match(err.message, new RegExp(`${path}:1:9: listen: must be HOST:PORT`));
    const missing = await readConfigFile(`${dir}/none.yaml`, env).then(() => undefined, (e) => e);
    assert.ok(missing instanceof ConfigError);
    assert.match(missing.message, /file not found/);
    await Deno.writeTextFile(path, GOOD);
    assert.equal((await readConfigFile(path, env)).clients[0].id, "alice");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config: sameDownstream detects changed entries (secrets included)", () => {
  const a = loadConfig(GOOD, env);
  const b = loadConfig(GOOD, (n) => (n === "MEMORY_TOKEN" ? "rotated-token-value" : env(n)));
  const c = loadConfig(GOOD.replace("pool: 4", "pool: 5"), env);
  assert.ok(a.ok && b.ok && c.ok);
  const again = loadConfig(GOOD, env);
  assert.ok(again.ok);
  assert.ok(sameDownstream(a.config.downstreams[0], again.config.downstreams[0]));
  assert.ok(!sameDownstream(a.config.downstreams[0], b.config.downstreams[0]));
  assert.ok(!sameDownstream(a.config.downstreams[0], c.config.downstreams[0]));
});

/** A two-downstream file whose `files` entry gets `extra` lines (env, env_passthrough). */
function exposureYaml(extra: string, operators = ""): string {
  return `
clients:
  - { id: alice, api_key_env: ALICE_KEY }
  - { id: bob, api_key_env: BOB_KEY }
${operators}
downstreams:
  memory:
    transport: stdio
    command: deno
    secrets: { SERVICE_TOKEN: MEMORY_TOKEN }
  files:
    transport: stdio
    command: deno
${extra}
`;
}

Deno.test("config: no downstream environment may receive a client key or another downstream's secret", () => {
  const base: Record<string, string> = {
    ...ENV,
    COPY_OF_ALICE: ENV.ALICE_KEY,
    COPY_OF_TOKEN: ENV.MEMORY_TOKEN,
    HARMLESS: "x1",
  };
  const lookup = (n: string) => base[n];
  // Generated: every guarded variable, by name and through another variable holding its value, alone
  // or among harmless entries, in env_passthrough and as a literal env value.
  const guarded: [string, string, string][] = [
    ["ALICE_KEY", ENV.ALICE_KEY, "the API key of client alice"],
    ["BOB_KEY", ENV.BOB_KEY, "the API key of client bob"],
    ["MEMORY_TOKEN", ENV.MEMORY_TOKEN, "secret SERVICE_TOKEN of downstream memory"],
  ];
  let cases = 0;
  for (const [variable, value, what] of guarded) {
    for (const others of [[], ["HARMLESS"], ["HARMLESS", "PATH"]]) {
      const variants: [string, RegExp][] = [
        [
          `    env_passthrough: [${[...others, variable].join(", ")}]`,
          new RegExp(`"${variable}" holds ${what}`),
        ],
        [`    env: { CHILD_VAR: ${JSON.stringify(value)} }`, new RegExp(`is set to the value of ${what}`)],
      ];
      const copy = variable === "ALICE_KEY"
        ? "COPY_OF_ALICE"
        : variable === "MEMORY_TOKEN"
        ? "COPY_OF_TOKEN"
        : "";
      if (copy !== "") {
        variants.push([
          `    env_passthrough: [${[copy, ...others].join(", ")}]`,
          new RegExp(`"${copy}" has the same value as ${what}`),
        ]);
      }
      for (const [extra, message] of variants) {
        const out = loadConfig(exposureYaml(extra), lookup);
        assert.equal(out.ok, false, extra);
        if (out.ok) continue;
        assert.ok(
          out.problems.some((p) => message.test(p.message)),
          `${extra}: ${JSON.stringify(out.problems)}`,
        );
        // Never the value itself.
        assert.ok(!JSON.stringify(out.problems).includes(value), extra);
        cases++;
      }
    }
  }
  assert.ok(cases >= 21);
  // Harmless passthrough and env values still load.
  const ok = loadConfig(exposureYaml("    env_passthrough: [HARMLESS, PATH]\n    env: { A: b }"), lookup);
  assert.equal(ok.ok, true, JSON.stringify(ok));
});

Deno.test("config: an operator's key variable is guarded like a client's, when operators are configured", () => {
  const base: Record<string, string> = { ...ENV, OPS_KEY: "operator-key-0123456789abcd" };
  const ops = "operators:\n  - { id: ops, api_key_env: OPS_KEY }";
  const out = loadConfig(exposureYaml("    env_passthrough: [OPS_KEY]", ops), (n) => base[n]);
  assert.equal(out.ok, false);
  assert.ok(
    !out.ok && out.problems.some((p) => /"OPS_KEY" holds the API key of operator ops/.test(p.message)),
  );
  const fine = loadConfig(exposureYaml("    env_passthrough: [HARMLESS]", ops), (n) => base[n]);
  assert.equal(fine.ok, true, JSON.stringify(fine));
});

Deno.test("config: checking without secrets warns about each unset variable instead of failing", () => {
  const text = exposureYaml("    env_passthrough: [HARMLESS]");
  // Generated: every subset of the three variables the file names is left unset.
  const names = ["ALICE_KEY", "BOB_KEY", "MEMORY_TOKEN"];
  for (let mask = 0; mask < 8; mask++) {
    const unset = names.filter((_, i) => (mask & (1 << i)) !== 0);
    const lookup = (n: string) => (unset.includes(n) ? undefined : ENV[n]);
    const strict = loadConfig(text, lookup);
    assert.equal(strict.ok, unset.length === 0, `strict, unset ${unset}`);
    const lax = loadConfig(text, lookup, { unset: "warning" });
    assert.ok(lax.ok, `lax, unset ${unset}: ${JSON.stringify(lax)}`);
    if (!lax.ok) continue;
    assert.deepEqual(
      (lax.warnings ?? []).map((w) => /variable (\w+)/.exec(w.message)?.[1]),
      unset,
      `mask ${mask}`,
    );
    for (const w of lax.warnings ?? []) assert.ok(w.line > 0 && w.path !== "");
  }
  // Shape problems are still problems without the secrets.
  const broken = loadConfig(exposureYaml("    pool: many"), () => undefined, { unset: "warning" });
  assert.equal(broken.ok, false);
  // And a guarded variable is still refused by name when it is not set.
  const leak = loadConfig(exposureYaml("    env_passthrough: [ALICE_KEY]"), () => undefined, {
    unset: "warning",
  });
  assert.equal(leak.ok, false);
});
