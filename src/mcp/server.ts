/**
 * Builds the official SDK server that exposes a {@link Service} as exactly three tools.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/validation/types"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { type Subject, withSubject } from "../../authz.ts";
import { CodeModeError, isCodeModeError } from "../errors.ts";
import type { Limits } from "../core/mod.ts";
import { cleanOutput, ERROR_TEXTS, errorText, withOutput } from "./errors.ts";
import { type AuthInfo, isResolver, isService, type Service, type SubjectResolver } from "./service.ts";
import {
  catalogListing,
  type ListedCapability,
  listingBudget,
  MAX_LISTED_CAPABILITIES,
} from "./catalog_listing.ts";
import {
  BAD_ARGUMENT_TEXTS,
  catalogExamples,
  isToolName,
  singleStringArgument,
  toolDefinitions,
  type ToolExamples,
  type ToolName,
  UNKNOWN_TOOL_TEXT,
} from "./tools.ts";

/**
 * A transport the SDK server can connect to: the SDK's `Transport` (`StdioServerTransport`,
 * `WebStandardStreamableHTTPServerTransport`, `InMemoryTransport`, ...), described structurally so this
 * package's public types stay its own.
 */
export interface McpTransport {
  /** Starts the transport (the server calls it from `connect`). */
  start(): Promise<void>;
  /** Sends one JSON-RPC message. */
  send(message: unknown, options?: unknown): Promise<void>;
  /** Closes the transport. */
  close(): Promise<void>;
}

/**
 * The server {@link createMcpServer} returns. The value is an instance of the official SDK's `Server`
 * (`@modelcontextprotocol/sdk/server/index.js`); this interface names the part a host needs — connect
 * it to a transport and close it — and a cast to the SDK type reaches the rest.
 */
export interface McpServer {
  /** Attaches the server to `transport` and starts it; the server then owns the transport. */
  connect(transport: McpTransport): Promise<void>;
  /** Closes the connection; in-flight tool calls see their signal aborted. */
  close(): Promise<void>;
  /** Called when the connection closes. */
  onclose?: (() => void) | undefined;
  /** Called on transport or protocol errors. */
  onerror?: ((error: Error) => void) | undefined;
}

/** The package version announced in `serverInfo` unless overridden. */
export const SERVER_VERSION = "0.1.0";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** `serverInfo.name` (default `"codemode"`). */
  readonly name?: string;
  /** `serverInfo.version` (default this package's version). */
  readonly version?: string;
  /** Server instructions shown to clients; a short usage guide by default. */
  readonly instructions?: string;
  /**
   * Limits quoted in the `execute` description. Defaults to the service's own `limits` property when it
   * has one (a built `Server` does).
   */
  readonly limits?: Partial<Limits>;
  /** Replacement tool descriptions, for hosts that add domain guidance. */
  readonly descriptions?: Partial<Readonly<Record<ToolName, string>>>;
  /**
   * The examples the descriptions quote. Default: drawn from the service's own catalog (its
   * `capabilities()`, which a built `Server` has) when `tools/list` is first answered, else a template.
   */
  readonly examples?: ToolExamples;
  /**
   * Budget in UTF-8 bytes of the catalog listed at the end of the `execute` description (default 4,096;
   * `0` or absent means the default). When every enabled capability's signature, output fields and
   * summary fit, the model can call them without searching or describing first; a larger catalog is not
   * listed. `false` (or a negative number) turns the listing off.
   */
  readonly catalogListingBytes?: number | false;
  /**
   * The capabilities to list (default: the service's `capabilities()`, each described with its
   * `describe()`), for a host that knows its catalog before its service is ready.
   */
  readonly listedCapabilities?: () => readonly ListedCapability[] | Promise<readonly ListedCapability[]>;
}

/** Default server instructions. */
export const DEFAULT_INSTRUCTIONS: string =
  "This server runs Starlark programs against a catalog of capabilities. Use search_api to find " +
  "capabilities for the task, describe_api to read the exact input and output of the ones you need, " +
  "then execute one program whose def main(): calls them with keyword arguments and returns the answer.";

/** Everything that does not change between requests, so per-request servers are cheap to make. */
export interface PreparedTools {
  /** Makes a fresh SDK server wired to the service. */
  create(validator?: jsonSchemaValidator): Server;
}

function serviceLimits(service: Service): Partial<Limits> | undefined {
  const limits = (service as { limits?: unknown }).limits;
  return limits !== null && typeof limits === "object" ? limits as Partial<Limits> : undefined;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function okResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
}

async function resolveSubject(
  resolver: SubjectResolver,
  extra: { authInfo?: AuthInfo; signal: AbortSignal },
): Promise<Subject | undefined> {
  try {
    const subject = await resolver.resolve({ authInfo: extra.authInfo, signal: extra.signal });
    if (
      subject === null || typeof subject !== "object" || typeof subject.id !== "string" || subject.id === ""
    ) {
      return undefined;
    }
    return Object.freeze({ id: subject.id });
  } catch {
    // A resolver failure is an authentication failure; its message may name credentials, so it is
    // dropped rather than forwarded.
    return undefined;
  }
}

async function runTool(
  service: Service,
  tool: ToolName,
  value: string,
  subject: Subject,
  signal: AbortSignal,
  printed: { output?: string } = {},
): Promise<Record<string, unknown>> {
  switch (tool) {
    case "search_api": {
      const r = await service.search(value);
      // Copy only the declared fields: the output schema allows no others.
      const results = r.results.map((x) => ({ name: x.name, signature: x.signature, summary: x.summary }));
      return typeof r.hint === "string" ? { results, truncated: r.truncated, hint: r.hint } : {
        results,
        truncated: r.truncated,
      };
    }
    case "describe_api": {
      const d = await service.describe(value);
      return {
        name: d.name,
        signature: d.signature,
        summary: d.summary,
        description: d.description,
        input: d.input.map((f) => ({ name: f.name, type: f.type, required: f.required })),
        output: d.output.map((f) => ({ name: f.name, type: f.type, required: f.required })),
      };
    }
    case "execute": {
      const onOutput = (output: string) => {
        printed.output = cleanOutput(output);
      };
      const result = await service.execute(subject, value, { signal, onOutput });
      const out = { result: result === undefined ? null : result };
      return printed.output === undefined ? out : { ...out, output: printed.output };
    }
  }
}

const tracer = trace.getTracer("codemode");

/** Marks a tool call's span failed with the call's error code (the text the model got is not recorded). */
function markFailed(span: Span, code: string): void {
  span.setAttribute("codemode.error_code", code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

/**
 * A JSON-RPC error whose message is exactly `message`. The SDK answers a thrown error with its `code`
 * and `message`; an `McpError` bakes `MCP error -32602: ` into its message and the client's `McpError`
 * adds the same prefix again, so a model would read it twice.
 */
function jsonRpcError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/**
 * The capabilities the execute description may list: the host's own list, else the service's
 * capabilities described one by one (stopping once more than could fit are known). Empty when they
 * cannot be known: the description then lists nothing, as for a large catalog.
 */
async function listedOf(
  service: Service,
  options: McpServerOptions,
  budget: number,
): Promise<readonly ListedCapability[]> {
  try {
    if (options.listedCapabilities !== undefined) return await options.listedCapabilities();
    if (typeof service.capabilities !== "function") return [];
    const capabilities = await service.capabilities();
    if (capabilities.length > MAX_LISTED_CAPABILITIES) return [];
    const out: ListedCapability[] = [];
    let bytes = 0;
    for (const c of capabilities) {
      const d = await service.describe(c.name);
      out.push({ name: d.name, signature: d.signature, summary: d.summary, output: d.output });
      // A signature alone past the budget: the catalog cannot be listed, describing more is wasted.
      bytes += d.signature.length + 3;
      if (bytes > budget) return [];
    }
    return out;
  } catch {
    return [];
  }
}

/**
 * Validates the dependencies and prepares the tool list once; `create()` then makes SDK servers.
 * Throws `invalid_registration` for a missing service or resolver.
 */
export function prepareTools(
  service: Service,
  resolver: SubjectResolver,
  options: McpServerOptions = {},
): PreparedTools {
  if (!isService(service)) {
    throw new CodeModeError("invalid_registration", "service must have search, describe and execute methods");
  }
  if (!isResolver(resolver)) {
    throw new CodeModeError("invalid_registration", "resolver must be an object with a resolve method");
  }
  const budget = listingBudget(options.catalogListingBytes);
  const definitions = (examples: ToolExamples | undefined, listed: readonly ListedCapability[] = []) =>
    toolDefinitions({
      limits: options.limits ?? serviceLimits(service),
      descriptions: options.descriptions,
      examples,
      catalog: catalogListing(listed, budget),
    });
  // The catalog's own examples and listing, computed once at the first listing (a deferred service is
  // built by then or is waited for); a service that cannot list its capabilities gets the template.
  let listing: Promise<{ tools: Tool[] }> | undefined;
  const listResult = () =>
    listing ??= (async () => {
      const listed = budget > 0 ? await listedOf(service, options, budget) : [];
      if (options.examples !== undefined || typeof service.capabilities !== "function") {
        return { tools: definitions(options.examples, listed) };
      }
      try {
        return { tools: definitions(catalogExamples(await service.capabilities()), listed) };
      } catch {
        return { tools: definitions(undefined, listed) };
      }
    })();
  const info = { name: options.name ?? "codemode", version: options.version ?? SERVER_VERSION };
  const instructions = options.instructions ?? DEFAULT_INSTRUCTIONS;

  return {
    create(validator?: jsonSchemaValidator): Server {
      const server = new Server(info, {
        capabilities: { tools: {} },
        instructions,
        jsonSchemaValidator: validator,
      });
      server.setRequestHandler(ListToolsRequestSchema, () => listResult());
      server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
        const { name, arguments: args } = request.params;
        if (!isToolName(name)) throw jsonRpcError(ErrorCode.InvalidParams, UNKNOWN_TOOL_TEXT);
        const value = singleStringArgument(name, args);
        if (value === undefined) return errorResult(BAD_ARGUMENT_TEXTS[name]);
        // One span per tool call (Deno's built-in OpenTelemetry when OTEL_DENO=true; a no-op otherwise):
        // the tool and, on failure, its code; never arguments, sources or results.
        return await tracer.startActiveSpan(
          "mcp.tools/call",
          { attributes: { "mcp.tool.name": name } },
          async (span) => {
            try {
              const subject = await resolveSubject(resolver, extra);
              if (subject === undefined) {
                markFailed(span, "unauthenticated");
                return errorResult(ERROR_TEXTS.unauthenticated);
              }
              span.setAttribute("codemode.subject", subject.id);
              const printed: { output?: string } = {};
              try {
                const structured = await withSubject(
                  subject,
                  () => runTool(service, name, value, subject, extra.signal, printed),
                );
                return okResult(structured);
              } catch (err) {
                markFailed(
                  span,
                  isCodeModeError(err) ? err.code : extra.signal.aborted ? "cancelled" : "internal",
                );
                return errorResult(withOutput(errorText(err, extra.signal), printed.output));
              }
            } finally {
              span.end();
            }
          },
        );
      });
      return server;
    },
  };
}

/**
 * Builds an official MCP SDK server exposing `service` as exactly three tools — `search_api {query}`,
 * `describe_api {name}` and `execute {source}` — each taking one required string and nothing else, each
 * with an output schema, answering with structured content plus one JSON text mirror. Failures are tool
 * results with `isError: true` and a fixed text per error code (see `ERROR_TEXTS`).
 *
 * Every valid call runs `resolver` first; a resolver failure or empty subject is `unauthenticated`.
 * The returned server owns no transport: connect it to one (`StdioServerTransport`, or use
 * `createHttpHandler` for Streamable HTTP) and close it when done. Throws `invalid_registration` for a
 * missing service or resolver.
 */
export function createMcpServer(
  service: Service,
  resolver: SubjectResolver,
  options: McpServerOptions = {},
): McpServer {
  return prepareTools(service, resolver, options).create();
}
