/**
 * The command line of `deno task serve` (src/mcp/serve_cli.ts): the parsed options, the `--help` text and
 * the parser, which names every wrong flag or value as a {@link UsageError} (exit status 2).
 *
 * @module
 */
import { ALLOWED_HOSTS_ENV, ALLOWED_ORIGINS_ENV, splitHost } from "./http.ts";
import { API_KEYS_ENV } from "./keys.ts";
import { OAUTH_ENV } from "../auth/mod.ts";

/** Parsed command line. */
export interface ServeArgs {
  /** `HOST:PORT` to serve HTTP on; stdio when absent. */
  readonly http?: { readonly hostname: string; readonly port: number };
  /** MCP endpoint path (HTTP). */
  readonly path: string;
  /** `--allowed-host` values. */
  readonly allowedHosts: readonly string[];
  /** `--allowed-origin` values. */
  readonly allowedOrigins: readonly string[];
  /** Subject of the stdio user, or of anonymous loopback HTTP requests. */
  readonly subject: string;
  /**
   * Executor choice; absent means automatic: the process pool when the host may spawn Deno, else the
   * worker pool.
   */
  readonly executor?: "worker" | "process" | "inline";
  /** Whether `--help` was given. */
  readonly help: boolean;
  /** `--oauth-issuer`: accept OAuth bearer tokens of this issuer (overrides `CODEMODE_OAUTH_ISSUER`). */
  readonly oauthIssuer?: string;
  /** `--oauth-audience`: this server's resource URI (overrides `CODEMODE_OAUTH_AUDIENCE`). */
  readonly oauthAudience?: string;
  /**
   * `--catalog-listing-bytes N` (a budget for the catalog listed in execute's description) or
   * `--no-catalog-listing` (`false`); absent means the default budget.
   */
  readonly catalogListingBytes?: number | false;
  /** `--openapi` and its companions: serve the operations of an OpenAPI document instead of the demo. */
  readonly openapi?: OpenAPIArgs;
}

/** The OpenAPI flags. */
export interface OpenAPIArgs {
  /** `--openapi FILE_OR_URL`. */
  readonly document: string;
  /** `--base-url URL`: the only origin called. */
  readonly baseUrl: string;
  /** `--header 'Name: value'` (repeatable; `${ENV}` expanded from the environment). */
  readonly headers: Readonly<Record<string, string>>;
  /** `--read-only`: GET and HEAD operations only. */
  readonly readOnly: boolean;
  /** `--include GLOB` (repeatable). */
  readonly include: readonly string[];
  /** `--exclude GLOB` (repeatable). */
  readonly exclude: readonly string[];
}

/** A command-line or configuration problem (exit status 2). */
export class UsageError extends Error {
  /** Creates a usage error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The `--help` text. */
export const USAGE = `Usage: deno task serve [options]

Serves the CodeMode demo catalog (or any HTTP API an OpenAPI document describes) over MCP: stdio by
default.

Options:
  --http HOST:PORT        serve stateless Streamable HTTP instead (e.g. 127.0.0.1:8787, [::1]:8787)
  --path PATH             MCP endpoint path (default /mcp); GET /healthz answers {"status":"ok"}, or 503
                          {"status":"degraded"} while a sandbox that did not stop holds a slot;
                          GET /metrics serves the executor pool's Prometheus metrics (authenticated
                          like the MCP endpoint; codemode_executor_degraded is 1 while degraded)
  --allowed-host HOST     also accept this Host header (repeatable; "name" = any port, "name:port"
                          exact, "*" any); always added to the defaults: the loopback names at the
                          bound port (for 127.0.0.1, ::1 and 0.0.0.0/::) or the bound address
  --allowed-origin ORIGIN accepted browser Origin, e.g. https://app.example.com (repeatable)
  --subject ID            subject of the stdio user and of keyless loopback HTTP (default "local")
  --executor KIND         where programs run: process (permission-less, heap-capped child processes
                          killed past their deadline; needs --allow-run), worker (zero-permission Web
                          Workers) or inline (the host isolate). Default: process when the server may
                          spawn Deno, else worker
  --oauth-issuer URL      also accept OAuth 2.1 bearer JWTs of this issuer (RFC 8414/OpenID discovery;
                          see docs/auth.md); needs --oauth-audience
  --oauth-audience URL    this server's resource URI, e.g. https://mcp.example.com/mcp (tokens' aud)
  --catalog-listing-bytes N
                          list the whole catalog in execute's description when it fits N bytes
                          (default 4096), so a model needs no search_api/describe_api first
  --no-catalog-listing    never list the catalog in execute's description
  --openapi FILE_OR_URL   serve the operations of this OpenAPI 3.0/3.1 document instead of the demo
                          (docs/openapi.md); needs --base-url
  --base-url URL          the API's base URL: every call goes to its origin, nowhere else
  --header 'Name: value'  a header every call sends, e.g. 'Authorization: Bearer \${API_TOKEN}'
                          (repeatable; \${NAME} is read from the environment, never shown to programs)
  --read-only             serve only GET and HEAD operations
  --include GLOB          serve only operations whose tag, path or operationId matches (repeatable)
  --exclude GLOB          leave out operations whose tag, path or operationId matches (repeatable)
  -h, --help              show this help

Environment:
  ${API_KEYS_ENV}       bearer keys as subject=key pairs, comma-separated (keys: 16+ characters).
                          Without keys HTTP serves loopback addresses only.
  ${ALLOWED_HOSTS_ENV}  more allowed Host values, comma-separated
  ${ALLOWED_ORIGINS_ENV} more allowed Origin values, comma-separated
  ${OAUTH_ENV.issuer}, ${OAUTH_ENV.audience}, ${OAUTH_ENV.requiredScopes}, ${OAUTH_ENV.subjects} ...
                          OAuth settings (docs/auth.md); the flags take precedence
`;

function parseHostPort(value: string): { hostname: string; port: number } {
  const { name, port } = splitHost(value);
  const n = Number(port);
  if (name === "" || port === undefined || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new UsageError(`--http expects HOST:PORT, e.g. 127.0.0.1:8787 or [::1]:8787 (got "${value}")`);
  }
  return { hostname: name.replace(/^\[(.*)\]$/, "$1"), port: n };
}

/** Parses the command line (`Deno.args`). Throws {@link UsageError}. */
export function parseServeArgs(args: readonly string[]): ServeArgs {
  let http: ServeArgs["http"];
  let path = "/mcp";
  let subject = "local";
  let executor: ServeArgs["executor"];
  let help = false;
  let oauthIssuer: string | undefined;
  let oauthAudience: string | undefined;
  let catalogListingBytes: number | false | undefined;
  const allowedHosts: string[] = [];
  const allowedOrigins: string[] = [];
  let openapiDocument: string | undefined;
  let baseUrl: string | undefined;
  const headers: Record<string, string> = {};
  let readOnly = false;
  const include: string[] = [];
  const exclude: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const next = args[++i];
      if (next === undefined) throw new UsageError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case "--http":
        http = parseHostPort(value());
        break;
      case "--path":
        path = value();
        break;
      case "--allowed-host":
        allowedHosts.push(value());
        break;
      case "--allowed-origin":
        allowedOrigins.push(value());
        break;
      case "--subject":
        subject = value();
        if (subject === "") throw new UsageError("--subject must not be empty");
        break;
      case "--executor": {
        const v = value();
        if (v !== "worker" && v !== "process" && v !== "inline") {
          throw new UsageError('--executor must be "process", "worker" or "inline"');
        }
        executor = v;
        break;
      }
      case "--oauth-issuer":
        oauthIssuer = value();
        break;
      case "--oauth-audience":
        oauthAudience = value();
        break;
      case "--catalog-listing-bytes": {
        const v = value();
        const n = Number(v);
        if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n <= 0) {
          throw new UsageError(`--catalog-listing-bytes expects a positive number of bytes (got "${v}")`);
        }
        catalogListingBytes = n;
        break;
      }
      case "--no-catalog-listing":
        catalogListingBytes = false;
        break;
      case "--openapi":
        openapiDocument = value();
        break;
      case "--base-url":
        baseUrl = value();
        break;
      case "--header": {
        const v = value();
        const colon = v.indexOf(":");
        const name = colon > 0 ? v.slice(0, colon).trim() : "";
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
          throw new UsageError(`--header expects 'Name: value' (got a value without a valid header name)`);
        }
        headers[name] = v.slice(colon + 1).trim();
        break;
      }
      case "--read-only":
        readOnly = true;
        break;
      case "--include":
        include.push(value());
        break;
      case "--exclude":
        exclude.push(value());
        break;
      case "-h":
      case "--help":
        help = true;
        break;
      default:
        throw new UsageError(`unknown argument "${arg}" (see --help)`);
    }
  }
  const openapiFlags = baseUrl !== undefined || readOnly || include.length > 0 || exclude.length > 0 ||
    Object.keys(headers).length > 0;
  if (openapiDocument === undefined && openapiFlags) {
    throw new UsageError("--base-url, --header, --read-only, --include and --exclude go with --openapi");
  }
  if (openapiDocument !== undefined && baseUrl === undefined) {
    throw new UsageError(
      "--openapi needs --base-url URL (the API's origin; the document's servers are not used)",
    );
  }
  return {
    http,
    path,
    allowedHosts,
    allowedOrigins,
    subject,
    executor,
    help,
    ...(oauthIssuer === undefined ? {} : { oauthIssuer }),
    ...(oauthAudience === undefined ? {} : { oauthAudience }),
    ...(catalogListingBytes === undefined ? {} : { catalogListingBytes }),
    ...(openapiDocument === undefined
      ? {}
      : { openapi: { document: openapiDocument, baseUrl: baseUrl!, headers, readOnly, include, exclude } }),
  };
}
