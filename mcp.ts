/**
 * The MCP adapter of CodeMode: expose a service (a built `Server`, or anything with `search`, `describe`
 * and `execute`) to MCP clients as exactly three tools — `search_api`, `describe_api` and `execute` —
 * through the official TypeScript SDK, over stdio or stateless Streamable HTTP.
 *
 * The adapter does not authenticate by itself: a {@link SubjectResolver} names the trusted caller of
 * every tool call. Use {@link staticSubject} for a single-user stdio server, {@link authInfoSubject} with
 * the HTTP handler's API keys (or any SDK auth middleware), or {@link contextSubject} when your own
 * middleware installs the subject with `withSubject`.
 *
 * @example Stdio, one local user
 * ```ts ignore
 * import { allowAll, Builder, t } from "@codemode/codemode";
 * import { serveStdio, staticSubject } from "@codemode/codemode/mcp";
 *
 * const builder = new Builder({ authorizer: allowAll() });
 * builder.register({
 *   name: "records.lookup",
 *   summary: "Look up one stored record by key",
 *   input: t.struct({ key: t.str() }),
 *   output: t.struct({ key: t.str(), count: t.int() }),
 *   handler: ({ key }) => ({ key, count: 1 }),
 * });
 * const server = await builder.build();
 * // Ends once stdin closes and every call made was answered; then release the workers.
 * const session = await serveStdio(server, staticSubject({ id: "local-user" }));
 * await session.finished;
 * await server.close();
 * ```
 *
 * @example Streamable HTTP with API keys
 * ```ts ignore
 * import { createHttpHandler, parseApiKeys } from "@codemode/codemode/mcp";
 *
 * const handler = createHttpHandler(server, {
 *   apiKeys: parseApiKeys(Deno.env.get("CODEMODE_API_KEYS") ?? ""),
 *   allowedHosts: ["mcp.example.com"],
 * });
 * Deno.serve({ hostname: "0.0.0.0", port: 8080 }, handler);
 * ```
 *
 * @module
 */

export {
  type AuthInfo,
  type AuthInfoMapper,
  authInfoSubject,
  contextSubject,
  deferredService,
  type ResolveContext,
  type Service,
  type ServiceExecuteOptions,
  staticSubject,
  type SubjectResolver,
} from "./src/mcp/service.ts";
export {
  createMcpServer,
  DEFAULT_INSTRUCTIONS,
  type McpServer,
  type McpServerOptions,
  type McpTransport,
  SERVER_VERSION,
} from "./src/mcp/server.ts";
export {
  CANCELLED_TEXT,
  cleanOutput,
  DETAIL_CODES,
  ERROR_TEXTS,
  errorText,
  MAX_OUTPUT_LENGTH,
  withOutput,
} from "./src/mcp/errors.ts";
export { serveStdio, type StdioSession } from "./src/mcp/stdio.ts";
export {
  type CatalogListing,
  catalogListing,
  DEFAULT_CATALOG_LISTING_BYTES,
  type ListedCapability,
  listingBudget,
  MAX_LISTED_CAPABILITIES,
} from "./src/mcp/catalog_listing.ts";
export { connectHint, type ConnectTarget } from "./src/mcp/connect_hint.ts";
export { type MeteredPool, type MetricsScrape, type MetricsSource, poolMetrics } from "./src/mcp/metrics.ts";
import { type ToolDefinitionOptions, toolDefinitions } from "./src/mcp/tools.ts";
export {
  BAD_ARGUMENT_TEXTS,
  catalogExamples,
  type ExampleCapability,
  executeDescription,
  isToolName,
  singleStringArgument,
  TEMPLATE_EXAMPLES,
  TOOL_NAMES,
  type ToolDefinitionOptions,
  type ToolExamples,
  type ToolName,
  UNKNOWN_TOOL_TEXT,
} from "./src/mcp/tools.ts";
export {
  ALLOWED_HOSTS_ENV,
  ALLOWED_ORIGINS_ENV,
  createHttpHandler,
  DEFAULT_MAX_BODY_BYTES,
  type HttpHandler,
  type HttpHandlerOptions,
  type HttpRequestInfo,
  isLoopbackHostname,
} from "./src/mcp/http.ts";
export { API_KEYS_ENV, type ApiKey, MIN_KEY_LENGTH, parseApiKeys } from "./src/mcp/keys.ts";
/** OAuth 2.1 settings of {@link HttpHandlerOptions.oauth} (see docs/auth.md). */
export type { IntrospectionSettings, OAuthSettings, SubjectMapper } from "./src/auth/mod.ts";

/** One of the three tools as `tools/list` shows it (plain JSON; the SDK's `Tool` shape). */
export interface ToolListing {
  /** The tool name. */
  readonly name: string;
  /** Display title. */
  readonly title?: string;
  /** What the tool does and how to use it. */
  readonly description?: string;
  /** JSON Schema of the arguments. */
  readonly inputSchema: { readonly type: "object"; readonly [key: string]: unknown };
  /** JSON Schema of the structured result. */
  readonly outputSchema?: { readonly type: "object"; readonly [key: string]: unknown };
  /** Behaviour hints. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/**
 * The `tools/list` entries of the three tools, for hosts that serve them next to tools of their own
 * (the gateway's `mode: both`): the same definitions and texts this adapter lists.
 */
export function toolListing(options: ToolDefinitionOptions = {}): ToolListing[] {
  return toolDefinitions(options) as ToolListing[];
}
