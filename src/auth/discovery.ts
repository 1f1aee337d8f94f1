/**
 * Finds an authorization server's JWKS from its issuer identifier: RFC 8414 metadata
 * (`/.well-known/oauth-authorization-server`, inserted before the issuer's path) first, then OpenID
 * Connect discovery (`<issuer>/.well-known/openid-configuration`). A document counts only if its
 * `issuer` is exactly the configured one (RFC 8414 §3.3), so a look-alike cannot hand over its keys.
 *
 * @module
 */

/** Fetches a URL with a deadline (a slow server must not hold a request forever). */
export async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    headers: { accept: "application/json" },
    redirect: "error",
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  const text = await response.text();
  if (text.length > 1_048_576) throw new Error(`${url} answered more than 1 MiB`);
  return JSON.parse(text);
}

/** The metadata URLs to try for `issuer`, in order. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const base = `${url.protocol}//${url.host}`;
  return [
    `${base}/.well-known/oauth-authorization-server${path}`,
    `${base}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The `jwks_uri` of `issuer`, from the first metadata document that names exactly this issuer.
 * Throws (with the URLs tried, never a credential) when none does.
 */
export async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<string> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const doc = await fetchJson(url, timeoutMs);
      if (doc === null || typeof doc !== "object") throw new Error(`${url}: not a JSON object`);
      const { issuer: named, jwks_uri: jwks } = doc as Record<string, unknown>;
      if (named !== issuer) throw new Error(`${url}: names issuer ${JSON.stringify(named)}`);
      if (typeof jwks !== "string") throw new Error(`${url}: no jwks_uri`);
      checkFetchableUrl(jwks, "jwks_uri");
      return jwks;
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
    }
  }
  throw new Error(`no authorization server metadata for ${issuer}: ${failures.join("; ")}`);
}

/**
 * Throws unless `value` is an `https:` URL, or `http:` on a loopback host (a local test provider):
 * keys fetched in clear text from elsewhere could be swapped on the way.
 */
export function checkFetchableUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} is not a URL: ${JSON.stringify(value)}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const loopback = host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new Error(`${what} must be https (http only on a loopback host): ${value}`);
  }
  return url;
}
