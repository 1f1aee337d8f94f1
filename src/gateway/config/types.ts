/**
 * The validated, resolved gateway configuration (the YAML file after every check, with environment
 * variables read). All values are plain frozen data; secret values live only in the fields that say so.
 *
 * @module
 */
import type { OAuthSettings } from "../../auth/mod.ts";
import type { LimitsSettings } from "../../limits/mod.ts";

/** A host and port to listen on. */
export interface ListenAddress {
  /** Host name or IP literal (IPv6 without brackets). */
  readonly host: string;
  /** TCP port (0 picks a free one). */
  readonly port: number;
  /** Whether the host is a loopback address (`127.0.0.0/8`, `::1`, `localhost`). */
  readonly loopback: boolean;
}

/**
 * How a client is served: `passthrough` lists its namespaced downstream tools, `codemode` only the
 * three code-mode tools (`search_api`, `describe_api`, `execute`) over them, `both` all of these.
 */
export type ServeMode = "passthrough" | "codemode" | "both";

/**
 * Code-mode budgets: the CodeMode core's `Limits` fields (written in snake_case in the file:
 * `max_execution_time`, `max_native_calls` ...); absent fields take the core's defaults.
 */
export interface CodeModeLimitsConfig {
  /** UTF-8 bytes of a program. */
  readonly maxSourceBytes?: number;
  /** Executed Starlark steps. */
  readonly maxExecutionSteps?: number;
  /** Wall time of one execution in milliseconds. */
  readonly maxExecutionTime?: number;
  /** Attempted native calls in one execution. */
  readonly maxNativeCalls?: number;
  /** Nesting depth of values crossing the sandbox boundary. */
  readonly maxValueDepth?: number;
  /** Encoded bytes of one crossing value. */
  readonly maxValueBytes?: number;
  /** Sum of the native results of one execution, in bytes. */
  readonly maxIntermediateValueBytes?: number;
  /** Bytes of a search query. */
  readonly maxSearchQueryBytes?: number;
  /** Entries of one search response. */
  readonly maxSearchResults?: number;
  /** Concurrent executions (sandbox slots) of the whole gateway. */
  readonly maxConcurrentExecutions?: number;
  /** Allocation the engine may charge in one execution (a sandbox process's heap cap is 4 × it + 64 MiB). */
  readonly maxMemoryBytes?: number;
  /** Largest Starlark int in bits. */
  readonly maxIntBits?: number;
}

/** A client allowed to call the gateway. */
export interface ClientConfig {
  /** The client id (policy and audit use it). */
  readonly id: string;
  /** Overrides the top-level `mode` for this client. */
  readonly mode?: ServeMode;
  /** The environment variable the key was read from (empty for a client that signs in with OAuth only). */
  readonly apiKeyEnv: string;
  /** The API key itself (secret: never log it; empty, which no request can present, for OAuth only). */
  readonly apiKey: string;
  /** OAuth token subjects (the `oauth.subject_claim` values) that sign in as this client. */
  readonly oauthSubjects?: readonly string[];
}

/** An operator: may read operator data (`/metrics`), never call tools. */
export interface OperatorConfig {
  /** The operator's id (for the operator log). */
  readonly id: string;
  /** The environment variable the key was read from. */
  readonly apiKeyEnv: string;
  /** The API key itself (secret: never log it; never equal to a client key). */
  readonly apiKey: string;
}

/** How a downstream's MCP sessions are shared between clients. */
export type SessionMode = "shared" | "per_client";

/** Fields common to every downstream. */
export interface DownstreamBase {
  /** The downstream's name: the namespace of its tools (`name__tool`). */
  readonly name: string;
  /** `shared`: one session for all clients; `per_client`: one per client, bounded by `pool`. */
  readonly sessionMode: SessionMode;
  /** The most live sessions (processes for stdio) in `per_client` mode. */
  readonly pool: number;
  /**
   * Injected secrets: the name the downstream sees (an environment variable for stdio, a header for http)
   * → the secret value read from the gateway's environment. Every value is redacted from what flows back.
   */
  readonly secrets: Readonly<Record<string, string>>;
  /** Which gateway variable each secret came from (same keys as `secrets`), for messages. */
  readonly secretEnv: Readonly<Record<string, string>>;
  /** Overrides the gateway's `call_timeout_ms` for this downstream. */
  readonly callTimeoutMs?: number;
}

/** A downstream started as a child process speaking MCP over stdio. */
export interface StdioDownstreamConfig extends DownstreamBase {
  /** The transport. */
  readonly transport: "stdio";
  /** The program. */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** Extra environment (non-secret), added to the minimal default environment. */
  readonly env: Readonly<Record<string, string>>;
  /** Gateway variables the child may see (names only; values read at spawn time). */
  readonly envPassthrough: readonly string[];
  /** Working directory of the child, if set. */
  readonly cwd?: string;
}

/** A downstream reached over Streamable HTTP. */
export interface HttpDownstreamConfig extends DownstreamBase {
  /** The transport. */
  readonly transport: "http";
  /** The MCP endpoint. */
  readonly url: string;
  /** Extra (non-secret) request headers. Secret headers come from `secrets`. */
  readonly headers: Readonly<Record<string, string>>;
}

/** One downstream MCP server. */
export type DownstreamConfig = StdioDownstreamConfig | HttpDownstreamConfig;

/** Allow and deny rules of one client: tool patterns (`memory__read_graph`, `memory__*`, `*__search_*`). */
export interface ClientPolicyConfig {
  /** Rules that allow. */
  readonly allow: readonly string[];
  /** Rules that deny; a deny beats an allow. */
  readonly deny: readonly string[];
}

/** The policy section. */
export interface PolicyConfig {
  /** The default decision: only `deny` is accepted. */
  readonly default: "deny";
  /** Rules per client id (a client without an entry may call nothing). */
  readonly clients: Readonly<Record<string, ClientPolicyConfig>>;
}

/** A regex redaction pattern gated by an anchor literal every match contains. */
export interface RedactionPatternConfig {
  /** The pattern's name (unique). */
  readonly name: string;
  /** The regex source (JavaScript syntax, no flags). */
  readonly regex: string;
  /** A literal that every match contains: the regex runs only where it occurs. */
  readonly anchor: string;
}

/** The redaction section. */
export interface RedactionConfig {
  /** A result whose encoded JSON is larger is replaced, unscanned, by an error result. */
  readonly maxResultBytes: number;
  /** Anchored regex patterns. */
  readonly patterns: readonly RedactionPatternConfig[];
}

/** Where audit records go. */
export type AuditSinkConfig = { readonly kind: "stdout" } | { readonly kind: "file"; readonly path: string };

/** The audit section. */
export interface AuditConfig {
  /** The sink: `stdout` or `file:PATH` (created 0600, appended to). */
  readonly sink: AuditSinkConfig;
  /** The most records queued. */
  readonly buffer: number;
  /** Above this many queued records, success records are shed (and counted). */
  readonly highWater: number;
  /** Period of fsync on a file sink. */
  readonly fsyncMs: number;
  /** How long a call waits for its security record to be written before failing closed. */
  readonly securityBlockMs: number;
}

/** The circuit-breaker section. */
export interface BreakerConfig {
  /** Consecutive failures that open a breaker. */
  readonly failureThreshold: number;
  /** How long a breaker stays open before a half-open probe. */
  readonly openMs: number;
}

/** Rate limiting of failed authentications per remote address (a token bucket each). */
export interface AuthRateLimitConfig {
  /** Failed authentications an address may make in a row (0 turns the limit off). */
  readonly burst: number;
  /** Failed authentications per minute an address regains, up to `burst`. */
  readonly refillPerMinute: number;
}

/** The optional argument-level authorizer. */
export interface AuthzConfig {
  /** An OPA Rego policy compiled to wasm (`opa build -t wasm`). */
  readonly rego?: {
    /** The `policy.wasm` or `bundle.tar.gz` file (relative to the working directory). */
    readonly policy: string;
    /** The decision, a ground data reference such as `data.gateway.args.allow`. */
    readonly decision: string;
  };
}

/** The whole validated configuration. */
export interface GatewayConfig {
  /** How clients are served unless their entry says otherwise (default `passthrough`). */
  readonly mode: ServeMode;
  /** Code-mode budgets. */
  readonly codemode: CodeModeLimitsConfig;
  /** Argument-level authorization of every call (passthrough and native alike), if configured. */
  readonly authz?: AuthzConfig;
  /** Where the MCP endpoint listens. */
  readonly listen: ListenAddress;
  /** A separate address serving `/metrics` without authentication, if set. */
  readonly metricsListen?: ListenAddress;
  /** Origins accepted in an `Origin` header; any other gets 403. */
  readonly allowedOrigins: readonly string[];
  /**
   * `Host` header names accepted besides the defaults (a loopback listener: the loopback names; another
   * address: any well-formed Host when this list is empty, else only these). Lets a loopback gateway
   * answer behind a reverse proxy that forwards its public name.
   */
  readonly allowedHosts: readonly string[];
  /** The per-call timeout. */
  readonly callTimeoutMs: number;
  /** The clients, in file order. */
  readonly clients: readonly ClientConfig[];
  /** The operators, who alone may read `/metrics` on the main listener (their keys are no client's). */
  readonly operators: readonly OperatorConfig[];
  /** The downstreams, in file order. */
  readonly downstreams: readonly DownstreamConfig[];
  /** The policy. */
  readonly policy: PolicyConfig;
  /** Redaction. */
  readonly redaction: RedactionConfig;
  /** The audit writer. */
  readonly audit: AuditConfig;
  /** Circuit breakers. */
  readonly breaker: BreakerConfig;
  /** Failed-authentication rate limit (default 10 in a row, then 10 a minute). */
  readonly authRateLimit: AuthRateLimitConfig;
  /** Rate limits, concurrency caps and quotas of calls (absent: none). */
  readonly limits?: LimitsSettings;
  /** OAuth 2.1 bearer tokens accepted besides API keys (absent: API keys only). */
  readonly oauth?: OAuthSettings;
}
