/**
 * `--stdio CLIENT_ID`: serves one configured client over stdin/stdout (desktop MCP apps) with the same
 * SDK server and the same {@link ClientSurface} the HTTP edge answers with, so the client gets its own
 * mode — code mode's `search_api`, `describe_api` and `execute`, its catalog, or both — exactly as over
 * HTTP. No API key is involved: the operator who starts the process names the client.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import process from "node:process";
import type { Identity } from "../domain/mod.ts";
import { type ClientServerOptions, type ClientSurface, createClientServer } from "./mcp_server.ts";

/** Options of {@link serveStdioClient}. */
export interface StdioClientOptions extends ClientServerOptions {
  /** Called once when the session ends: stdin reached its end, or the transport closed. */
  readonly onEnd?: (why: "stdin closed" | "stdio closed") => void;
}

/** A client served over stdio. */
export interface StdioClientSession {
  /** Closes the session (the transport and the SDK server). */
  close(): Promise<void>;
}

/**
 * Connects `client`'s server (see {@link createClientServer}) to this process's stdin and stdout and
 * resolves once it listens. Nothing else may write to stdout while it runs.
 */
export async function serveStdioClient(
  surface: ClientSurface,
  client: Identity,
  options: StdioClientOptions = {},
): Promise<StdioClientSession> {
  const server = createClientServer(surface, Object.freeze({ id: client.id }), options);
  let ended = false;
  const end = (why: "stdin closed" | "stdio closed") => {
    if (ended) return;
    ended = true;
    options.onEnd?.(why);
  };
  server.onclose = () => end("stdio closed");
  // The SDK transport does not watch for end of input; the desktop app closing stdin is the signal.
  process.stdin.once("end", () => end("stdin closed"));
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  return { close: () => server.close() };
}
