/**
 * RFC 9728 protected-resource metadata and the `WWW-Authenticate` challenges that point MCP clients to
 * it (the MCP authorization specification's discovery): the metadata names this resource, the
 * authorization servers that issue tokens for it and the scopes it knows; a refusal's challenge carries
 * `resource_metadata="<url>"`, the RFC 6750 error code and the required scope.
 *
 * @module
 */
import type { AuthRefusal } from "./domain.ts";

/** The well-known path prefix of RFC 9728. */
export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";

/** What the metadata says about one resource. */
export interface ResourceMetadataOptions {
  /** The resource's canonical URI (the tokens' audience). */
  readonly resource: string;
  /** Issuers of tokens for it. */
  readonly authorizationServers: readonly string[];
  /** Scopes advertised (may be empty). */
  readonly scopesSupported: readonly string[];
  /** Scopes every token must grant (named in challenges). */
  readonly requiredScopes: readonly string[];
}

/**
 * The metadata URL of `resource`: the well-known prefix inserted before the resource's path
 * (RFC 9728 §3.1), e.g. `https://gw.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.protocol}//${url.host}${PROTECTED_RESOURCE_PATH}${path}`;
}

/** Serves the metadata document and builds challenges for one resource. */
export class ProtectedResource {
  readonly #options: ResourceMetadataOptions;
  readonly #body: string;
  readonly #paths: ReadonlySet<string>;
  /** Where the metadata is published (named in every challenge). */
  readonly metadataUrl: string;

  /** Prepares the document. */
  constructor(options: ResourceMetadataOptions) {
    this.#options = options;
    this.metadataUrl = resourceMetadataUrl(options.resource);
    const doc: Record<string, unknown> = {
      resource: options.resource,
      authorization_servers: [...options.authorizationServers],
      bearer_methods_supported: ["header"],
    };
    if (options.scopesSupported.length > 0) doc.scopes_supported = [...options.scopesSupported];
    this.#body = JSON.stringify(doc);
    this.#paths = new Set([PROTECTED_RESOURCE_PATH, new URL(this.metadataUrl).pathname]);
  }

  /** Whether `pathname` is one the metadata is served at (the root form and the path-suffixed form). */
  serves(pathname: string): boolean {
    return this.#paths.has(pathname);
  }

  /** The metadata response (public, cacheable, readable by browser clients of any origin). */
  response(method: string): Response {
    if (method !== "GET" && method !== "HEAD") {
      return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
    }
    return new Response(method === "HEAD" ? null : this.#body, {
      headers: {
        "content-type": "application/json",
        "cache-control": "public, max-age=3600",
        "access-control-allow-origin": "*",
      },
    });
  }

  /** The `WWW-Authenticate` value for `refusal` (RFC 6750 §3 with RFC 9728 §5.1's `resource_metadata`). */
  challenge(refusal: AuthRefusal): string {
    const parts = [`resource_metadata="${this.metadataUrl}"`];
    if (refusal.kind !== "missing" && refusal.kind !== "unknown_subject") {
      parts.push(`error="${refusal.kind}"`, `error_description="${quoted(refusal.reason)}"`);
    }
    if (this.#options.requiredScopes.length > 0) {
      parts.push(`scope="${this.#options.requiredScopes.join(" ")}"`);
    }
    return `Bearer ${parts.join(", ")}`;
  }
}

function quoted(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "'");
}
