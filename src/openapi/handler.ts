/**
 * The handler factory: each capability calls its operation with `fetch`, and only ever on the configured
 * base URL's origin. Arguments go back on the wire under the document's names (path segments
 * percent-encoded, query values repeated for lists, headers, cookies, the JSON body); the configured
 * credentials are added last so a program cannot replace them. Redirects are followed by hand and only
 * within the origin; the execution's signal and a per-call deadline bound every call; the body is read
 * up to a byte cap; a non-2xx answer fails with its status and a short excerpt of its body. No error
 * carries a URL, a header or a credential: the excerpt has every configured secret blanked.
 *
 * @module
 */
import { CapabilityError, type HandlerContext } from "../core/mod.ts";
import { CodeModeError } from "../errors.ts";
import { fromDownstream, type JsonValue, toDownstream } from "../jsonschema/mod.ts";
import type { OpenAPICredentials, Operation } from "./domain.ts";
import type { Signature } from "./signature.ts";

/** Same-origin redirects followed at most per call. */
export const MAX_REDIRECTS = 5;
/** Characters of a failed response's body quoted in the error. */
export const EXCERPT_CHARS = 120;
/** Default deadline of one call, in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** What every handler of one document shares. */
export interface CallConfig {
  /** The base URL: its origin is the only one called; its path prefixes every operation's path. */
  readonly base: URL;
  /** Credential and fixed headers, expanded. */
  readonly headers: ReadonlyMap<string, string>;
  /** Credential query parameters, expanded. */
  readonly query: ReadonlyMap<string, string>;
  /** Every secret value, blanked out of error excerpts. */
  readonly secrets: readonly string[];
  /** Largest body read. */
  readonly maxResponseBytes: number;
  /** Deadline of one call. */
  readonly timeoutMs: number;
  /** The fetch used. */
  readonly fetch: typeof fetch;
}

/** `${NAME}` in `text` replaced by the variable's value; `what` names the setting in the error. */
export function expandEnv(text: string, what: string, env: (name: string) => string | undefined): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env(name);
    if (value === undefined) {
      throw new CodeModeError("invalid_registration", `${what} uses \${${name}}, but ${name} is not set`);
    }
    return value;
  });
}

/** The shared call configuration from the options' credentials (expanded now, so errors come early). */
export function callConfig(
  base: URL,
  credentials: OpenAPICredentials,
  env: (name: string) => string | undefined,
  limits: { maxResponseBytes: number; timeoutMs: number; fetch: typeof fetch },
): CallConfig {
  const headers = new Map<string, string>();
  const query = new Map<string, string>();
  const secrets: string[] = [];
  const secret = (value: string) => {
    if (value.length >= 4) secrets.push(value);
    // `Bearer abc…`: the token alone is as secret as the whole value.
    const token = /^\S+\s+(\S{4,})$/.exec(value)?.[1];
    if (token !== undefined) secrets.push(token);
  };
  for (const [name, raw] of Object.entries(credentials.headers ?? {})) {
    const value = expandEnv(raw, `header ${name}`, env);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value)) {
      throw new CodeModeError("invalid_registration", `header ${JSON.stringify(name)} is not a valid header`);
    }
    headers.set(name.toLowerCase(), value);
    secret(value);
  }
  for (const [name, raw] of Object.entries(credentials.query ?? {})) {
    const value = expandEnv(raw, `query parameter ${name}`, env);
    query.set(name, value);
    secret(value);
  }
  if (credentials.basicAuth !== undefined) {
    const user = expandEnv(credentials.basicAuth.username, "basic auth username", env);
    const password = expandEnv(credentials.basicAuth.password, "basic auth password", env);
    const bytes = new TextEncoder().encode(`${user}:${password}`);
    const token = btoa(String.fromCharCode(...bytes));
    headers.set("authorization", `Basic ${token}`);
    secret(password);
    secret(token);
  }
  // Longest first, so a secret containing another is blanked whole.
  secrets.sort((a, b) => b.length - a.length);
  return { base, headers, query, secrets, ...limits };
}

function wireText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The request an operation's bound arguments describe. */
export function buildRequest(
  op: Operation,
  sig: Signature,
  input: Record<string, unknown>,
  config: CallConfig,
): { url: URL; init: RequestInit & { headers: Headers } } {
  let path = op.path;
  const query = new URLSearchParams();
  const headers = new Headers();
  const cookies: string[] = [];
  let body: Record<string, JsonValue> | undefined;
  let whole: JsonValue | undefined;
  for (const plan of sig.args) {
    const raw = input[plan.arg];
    if (raw === undefined || raw === null) continue;
    const value = toDownstream(raw, plan.rename);
    switch (plan.place) {
      case "path": {
        const text = Array.isArray(value) ? value.map(wireText).join(",") : wireText(value);
        path = path.replaceAll(`{${plan.wire}}`, encodeURIComponent(text));
        break;
      }
      case "query":
        for (const v of Array.isArray(value) ? value : [value]) query.append(plan.wire, wireText(v));
        break;
      case "header":
        headers.set(plan.wire, wireText(value).replace(/[\r\n\0]/g, " "));
        break;
      case "cookie":
        cookies.push(`${plan.wire}=${encodeURIComponent(wireText(value))}`);
        break;
      case "field":
        (body ??= {})[plan.wire] = value;
        break;
      case "body":
        whole = value;
        break;
    }
  }
  for (const [name, value] of config.query) query.set(name, value);
  if (cookies.length > 0) headers.set("cookie", cookies.join("; "));
  if (!headers.has("accept")) headers.set("accept", "application/json, text/plain;q=0.9, */*;q=0.5");
  for (const [name, value] of config.headers) headers.set(name, value);
  const prefix = config.base.pathname.replace(/\/+$/, "");
  // Built on the origin, never parsed from the joined text: a path cannot name another host.
  const url = new URL(config.base.origin);
  url.pathname = `${prefix}${path.startsWith("/") ? "" : "/"}${path}`;
  url.search = query.toString();
  const payload = whole !== undefined ? whole : body;
  let requestBody: string | undefined;
  if (payload !== undefined && op.body !== undefined) {
    requestBody = JSON.stringify(payload);
    headers.set("content-type", op.body.mediaType.includes("*") ? "application/json" : op.body.mediaType);
  }
  return { url, init: { method: op.method.toUpperCase(), headers, body: requestBody } };
}

/** `text` with every configured secret blanked. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.replaceAll(s, "[redacted]");
  return out;
}

/** A short printable excerpt of a failed response's body, secrets blanked. */
function excerpt(bytes: Uint8Array, secrets: readonly string[]): string {
  // Redaction first, on everything read; then the cut, on the raw text, before spaces collapse: a secret
  // cut off at the end of what was read lies far past the excerpt and never moves into it.
  const text = redact(new TextDecoder().decode(bytes), secrets);
  const cut = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS - 1).toWellFormed()}…` : text;
  return cut.replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}]+/gu, " ").replace(/\s+/g, " ").trim();
}

/**
 * Reads at most `max` bytes of a body: when it is longer, the rest is not read and the result is
 * undefined, or with `prefix` the first `max` bytes.
 */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
  prefix = false,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > max) {
        await reader.cancel();
        if (!prefix) return undefined;
        chunks.push(value.subarray(0, max - size));
        size = max;
        break;
      }
      size += value.byteLength;
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The longest failure message, in UTF-8 bytes: the core shows a model at most 256. */
const MAX_MESSAGE_BYTES = 256;

/** `text` cut to at most `max` UTF-8 bytes, with `…` when cut. */
function fitBytes(text: string, max: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= max) return text;
  let out = "";
  let used = 3; // the ellipsis
  for (const ch of text) {
    used += encoder.encode(ch).length;
    if (used > max) break;
    out += ch;
  }
  return `${out}…`;
}

function fail(message: string): never {
  throw new CapabilityError(fitBytes(message, MAX_MESSAGE_BYTES), { safeForModel: true });
}

/** Sends the request, following same-origin redirects only. */
async function send(
  url: URL,
  init: RequestInit & { headers: Headers },
  config: CallConfig,
  http: string,
  signal: AbortSignal,
): Promise<Response> {
  let method = init.method!;
  let body = init.body;
  for (let hop = 0;; hop++) {
    let response: Response;
    try {
      response = await config.fetch(url, { ...init, method, body, redirect: "manual", signal });
    } catch {
      // The cause may quote the URL (and so a credential query parameter): it is not kept.
      if (signal.aborted) fail(`${http}: the call was cancelled or passed its deadline`);
      fail(`${http}: the API could not be reached`);
    }
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) fail(`${http}: more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      fail(`${http}: HTTP ${response.status} redirects to an invalid location`);
    }
    if (next.origin !== config.base.origin) {
      fail(`${http}: HTTP ${response.status} redirects to another origin; the call was not followed`);
    }
    if (
      response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")
    ) {
      method = "GET";
      body = undefined;
      init.headers.delete("content-type");
    }
    url = next;
  }
}

/** The handler of one operation. */
export function makeHandler(
  op: Operation,
  sig: Signature,
  config: CallConfig,
): (input: Record<string, unknown>, ctx: HandlerContext) => Promise<Record<string, unknown>> {
  // Bounded, so a long path template still leaves room for the status and the excerpt.
  const http = fitBytes(`${op.method.toUpperCase()} ${op.path}`, 100);
  return async (input, ctx) => {
    const { url, init } = buildRequest(op, sig, input, config);
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(config.timeoutMs)]);
    const response = await send(url, init, config, http, signal);
    let bytes: Uint8Array | undefined;
    try {
      bytes = op.method === "head"
        ? (await response.body?.cancel(), new Uint8Array())
        : response.ok
        ? await readCapped(response.body, config.maxResponseBytes)
        : await readCapped(response.body, 4096, true);
    } catch {
      fail(`${http}: reading the answer failed or passed its deadline`);
    }
    if (!response.ok) {
      const quoted = bytes === undefined ? "(body too long to quote)" : excerpt(bytes, config.secrets);
      // The excerpt is cut last, in fail(): the status always survives.
      fail(`${http} answered HTTP ${response.status}${quoted === "" ? "" : `: ${quoted}`}`);
    }
    if (bytes === undefined) fail(`${http}: the answer is larger than ${config.maxResponseBytes} bytes`);
    const type = response.headers.get("content-type") ?? "";
    const text = new TextDecoder().decode(bytes);
    let value: JsonValue;
    if (op.response.kind === "text" || !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      value = text === "" && op.response.kind !== "text" ? null : text;
    } else {
      try {
        value = text.trim() === "" ? null : JSON.parse(text);
      } catch {
        fail(`${http}: the answer is not valid JSON`);
      }
    }
    if (sig.result.shape === "struct") {
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        fail(`${http}: the answer is not the JSON object the document describes`);
      }
      return fromDownstream(value, sig.result.rename) as Record<string, unknown>;
    }
    return { body: fromDownstream(value, sig.result.rename) ?? null };
  };
}
