/**
 * Helpers for HTTP tests: serve a handler on 127.0.0.1 with an OS-chosen port, connect an SDK client,
 * and send raw MCP requests.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHttpHandler, type HttpHandler, type HttpHandlerOptions, type Service } from "../../mcp.ts";

/** A served handler. */
export interface Served {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The MCP endpoint URL. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Serves `service` with options computed from the bound port. */
export function serveHandler(
  service: Service,
  options: (port: number) => HttpHandlerOptions,
): Served {
  const late: { handler?: HttpHandler } = {};
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req, info) => late.handler!(req, info),
  );
  const port = server.addr.port;
  const opts = options(port);
  late.handler = createHttpHandler(service, opts);
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}${opts.path ?? "/mcp"}`,
    port,
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

/** The loopback Host values of a port. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** Connects an SDK client over Streamable HTTP, with extra request headers. */
export async function connectClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** An `initialize` request body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** Sends a raw POST to the endpoint and returns the status, headers and parsed body (or text). */
export async function rawPost(
  url: string,
  headers: Record<string, string> = {},
  body: string = INITIALIZE,
  method = "POST",
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: method === "POST" ? body : undefined,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Keep the text.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * Sends one HTTP/1.1 POST over a raw TCP connection, so the `Host` header is exactly `host` (`fetch`
 * derives it from the URL). Returns the status code.
 */
export async function rawStatusWithHost(
  port: number,
  path: string,
  host: string,
  body = INITIALIZE,
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const bytes = new TextEncoder().encode(body);
    const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(head));
    await conn.write(bytes);
    const buf = new Uint8Array(256);
    let text = "";
    while (!text.includes("\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (match === null) throw new Error(`no HTTP status line in ${JSON.stringify(text)}`);
    return Number(match[1]);
  } finally {
    conn.close();
  }
}
