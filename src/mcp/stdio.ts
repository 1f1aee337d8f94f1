/**
 * Serving a service on stdio the way a host expects: the process ends when the client is done. The
 * SDK's stdio transport does not notice the end of stdin, so a host that only calls `connect` keeps
 * running after its client has gone; {@link serveStdio} watches stdin, lets the calls already made get
 * their answers, then closes the MCP server.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import process from "node:process";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import type { Service, SubjectResolver } from "./service.ts";

/** A stdio session started by {@link serveStdio}. */
export interface StdioSession {
  /** Resolves once the MCP server has closed: stdin ended and every call was answered, or `close()`. */
  readonly finished: Promise<void>;
  /** Closes the MCP server now (calls in flight are cancelled). */
  close(): Promise<void>;
}

/** Wraps a service so the session knows when no call is in flight. */
function tracked(service: Service): { service: Service; idle(): Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    p.then(() => inFlight.delete(p), () => inFlight.delete(p));
    return p;
  };
  const wrapped: Service = {
    search: (query) => track(Promise.resolve().then(() => service.search(query))),
    describe: (name) => track(Promise.resolve().then(() => service.describe(name))),
    execute: (subject, source, options) => track(Promise.resolve(service.execute(subject, source, options))),
  };
  if (service.capabilities !== undefined) wrapped.capabilities = () => service.capabilities!();
  // Keep the limits the tool descriptions quote.
  const limits = (service as { limits?: unknown }).limits;
  if (limits !== undefined) Object.defineProperty(wrapped, "limits", { value: limits });
  return {
    service: wrapped,
    async idle() {
      // A macrotask between checks lets lines already read reach the service (the SDK dispatches them
      // in microtasks) and lets the SDK write the answers of settled calls.
      const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
      await tick();
      while (inFlight.size > 0) {
        await Promise.allSettled([...inFlight]);
        await tick();
      }
    },
  };
}

/**
 * Serves `service` over stdin/stdout as an MCP server (see `createMcpServer`) and ends the session when
 * stdin ends, once the calls already made have been answered (each is bounded by the service's own
 * budgets). The service is not closed: close it after `finished`, e.g.
 * `await (await serveStdio(server, staticSubject({ id: "me" }))).finished; await server.close();`.
 */
export async function serveStdio(
  service: Service,
  resolver: SubjectResolver,
  options: McpServerOptions = {},
): Promise<StdioSession> {
  const calls = tracked(service);
  const mcp = createMcpServer(calls.service, resolver, options);
  const { promise: finished, resolve } = Promise.withResolvers<void>();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= mcp.close().catch(() => {}).then(() => resolve());
    return closing;
  };
  mcp.onclose = () => void close();
  process.stdin.once("end", () => void calls.idle().then(close));
  await mcp.connect(new StdioServerTransport());
  return { finished, close };
}
