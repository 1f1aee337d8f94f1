/**
 * The MCP security gateway: an MCP server over Streamable HTTP (or stdio for one client) that fronts
 * real downstream MCP servers and puts every call through one pipeline — audit → redact(out) → policy →
 * redact(in) → resilience → dispatch. Clients authenticate with bearer API keys; policy denies by
 * default and a client never sees a tool it may not call; injected secrets and anchored patterns are
 * redacted from everything that flows back; breakers isolate failing downstreams; every call leaves
 * one JSONL audit record.
 *
 * `gateway.callTool(clientId, toolName, args, signal)` is the pipeline entry shared by HTTP, `--stdio`
 * and (next) CodeMode native calls.
 *
 * @example
 * ```ts ignore
 * import { Gateway, readConfigFile } from "@codemode/codemode/gateway";
 *
 * const gateway = await Gateway.create(await readConfigFile("gateway.yaml"));
 * const { url } = await gateway.serve();
 * console.error(`listening on ${url}`);
 * const result = await gateway.callTool("alice", "memory__read_graph", {});
 * await gateway.close();
 * ```
 *
 * @module
 */
export * from "./src/gateway/mod.ts";
/** The `oauth:` section's settings (see docs/auth.md). */
export type { IntrospectionSettings, OAuthSettings } from "./src/auth/mod.ts";
