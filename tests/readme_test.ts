/**
 * The README's own snippets work as a consumer would use them (issue 11): every `json` block parses;
 * every `ts` block passes `deno lint` and `deno check` and runs to completion in a scratch project whose
 * `deno.json` is the README's consumer configuration, with `@codemode/codemode` mapped to this checkout.
 * The host sample of `docs/mcp.md` runs the same way on stdio and exits once its client closes stdin.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const README = Deno.readTextFileSync(new URL("README.md", ROOT));

interface Block {
  readonly lang: string;
  readonly code: string;
  readonly line: number;
}

function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const re = /^```(\w*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(re)) {
    out.push({ lang: m[1], code: m[2], line: markdown.slice(0, m.index).split("\n").length });
  }
  return out;
}

/** The import map of a consumer of this checkout: every export of our deno.json, by package name. */
function localImports(): Record<string, string> {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  const imports: Record<string, string> = {};
  for (const [sub, path] of Object.entries(config.exports as Record<string, string>)) {
    imports[sub === "." ? config.name : `${config.name}${sub.slice(1)}`] = new URL(path, ROOT).href;
  }
  // The packages our modules import by name, as our own deno.json maps them.
  return { ...config.imports, ...imports };
}

async function deno(args: string[], cwd: string, input?: string): Promise<{ code: number; text: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A process that never exits fails the test instead of hanging it.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close(); // the client is done: the host must now finish and exit on its own
  }
  const out = await child.output();
  clearTimeout(guard);
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

const ALL = blocks(README);

/** A scratch consumer project: the README's configuration with the package mapped to this checkout. */
async function consumerProject(): Promise<string> {
  const consumer = ALL.filter((b) => b.lang === "json").map((b) => JSON.parse(b.code))
    .find((c) => c.imports?.["@codemode/codemode"]);
  const dir = await Deno.makeTempDir({ prefix: "codemode-readme-" });
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({ ...consumer, imports: localImports() }, null, 2),
  );
  return dir;
}

Deno.test("README: every json block parses; the consumer configuration enables worker-options", () => {
  const json = ALL.filter((b) => b.lang === "json");
  assert.ok(json.length >= 3, "the README shows its configurations");
  for (const b of json) JSON.parse(b.code);
  const consumer = json.map((b) => JSON.parse(b.code)).find((c) => c.imports?.["@codemode/codemode"]);
  assert.ok(consumer, "a consumer deno.json is shown");
  assert.deepEqual(consumer.unstable, ["worker-options"]);
});

Deno.test("README: every ts block passes lint and check and runs as a consumer project", async () => {
  const ts = ALL.filter((b) => b.lang === "ts");
  assert.ok(ts.length >= 1, "the README shows library use");
  const dir = await consumerProject();
  try {
    for (const [i, b] of ts.entries()) {
      const file = `${dir}/snippet_${i}.ts`;
      await Deno.writeTextFile(file, b.code);
      const where = `README.md:${b.line}`;
      const lint = await deno(["lint", file], dir);
      assert.equal(lint.code, 0, `${where}: deno lint\n${lint.text}`);
      const check = await deno(["check", "--quiet", file], dir);
      assert.equal(check.code, 0, `${where}: deno check\n${check.text}`);
      const run = await deno(["run", "--quiet", "--no-prompt", "--allow-read", file], dir);
      assert.equal(run.code, 0, `${where}: deno run\n${run.text}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/mcp.md: the host sample serves stdio and exits when the client closes stdin", async () => {
  const docs = blocks(Deno.readTextFileSync(new URL("docs/mcp.md", ROOT))).filter((b) => b.lang === "ts");
  const sample = docs.find((b) => b.code.includes("serveStdio("));
  assert.ok(sample, "docs/mcp.md shows a stdio host");
  const dir = await consumerProject();
  try {
    await Deno.writeTextFile(`${dir}/host.ts`, sample.code);
    assert.equal((await deno(["lint", `${dir}/host.ts`], dir)).code, 0);
    assert.equal((await deno(["check", "--quiet", `${dir}/host.ts`], dir)).code, 0);
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "execute",
          arguments: { source: 'def main():\n    return records.lookup(key="k")\n' },
        },
      },
    ].map((m) => JSON.stringify(m) + "\n").join("");
    const run = await deno(
      ["run", "--quiet", "--no-prompt", "--allow-read", "--allow-env", "host.ts", "--stdio"],
      dir,
      lines,
    );
    assert.equal(run.code, 0, run.text);
    // The call sent just before stdin closed was still answered.
    assert.match(
      run.text,
      /"structuredContent":\{"result":\{"key":"k","count":1\}\}\},"jsonrpc":"2\.0","id":2\}/,
      run.text,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("docs/mcp.md: the host sample serves HTTP on localhost as written; a foreign Host is told what to set", async () => {
  const docs = blocks(Deno.readTextFileSync(new URL("docs/mcp.md", ROOT))).filter((b) => b.lang === "ts");
  const sample = docs.find((b) => b.code.includes("createHttpHandler("));
  assert.ok(sample, "docs/mcp.md shows an HTTP host");
  const dir = await consumerProject();
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  await Deno.writeTextFile(`${dir}/host.ts`, sample.code);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      "--allow-net=127.0.0.1",
      "host.ts",
    ],
    cwd: dir,
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.text().then(() => true), () => false))
    ) {
      assert.ok(Date.now() < deadline, "the sample starts listening");
      await new Promise((r) => setTimeout(r, 100));
    }
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import(
      "@modelcontextprotocol/sdk/client/streamableHttp.js"
    );
    const client = new Client({ name: "docs", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      const r = await client.callTool({
        name: "execute",
        arguments: { source: 'def main():\n    return records.lookup(key="k")\n' },
      });
      assert.deepEqual(r.structuredContent, { result: { key: "k", count: 1 } });
    } finally {
      await client.close();
    }
    // The Host a local client sends as localhost is served; one the sample does not list is 403, naming
    // the Host received and the option that allows it.
    assert.match(await rawRequest(port, `localhost:${port}`), /^HTTP\/1\.1 200/);
    const answer = await rawRequest(port, `mcp.example.org:${port}`);
    assert.match(answer, /^HTTP\/1\.1 403/);
    assert.ok(answer.includes(`Host header \\"mcp.example.org:${port}\\" not allowed`), answer);
    assert.match(answer, /allowedHosts \(createHttpHandler\), --allowed-host or CODEMODE_ALLOWED_HOSTS/);
  } finally {
    child.kill("SIGTERM");
    const stderr = new TextDecoder().decode((await child.output()).stderr);
    await Deno.remove(dir, { recursive: true });
    // The refusal is in the log too, with the Host received.
    assert.match(
      stderr,
      new RegExp(`codemode: Host header "mcp\\.example\\.org:${port}" not allowed`),
      stderr,
    );
  }
});

/** A raw MCP `ping` POST to 127.0.0.1:`port` with the given Host header; the whole response as text. */
async function rawRequest(port: number, host: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  await conn.write(new TextEncoder().encode(
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  ));
  let answer = "";
  const buf = new Uint8Array(4096);
  for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
    answer += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  return answer;
}
