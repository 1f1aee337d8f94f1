/**
 * The console's HTTP side, under `/console` on a gateway listener: the login form (the operator posts
 * its key once and gets a session cookie), the page and its static assets (served from the gateway
 * itself, the charting library included: no third-party origin), and the page's event stream. Nothing
 * here changes the gateway's state. Every answer carries a strict Content-Security-Policy: scripts and
 * styles come only from files of this origin, never inline.
 *
 * @module
 */
import type { ConsoleRequestContext } from "./domain.ts";
import type { ConsoleLive } from "./live.ts";
import { cookieValue, SESSION_COOKIE, SessionStore } from "./sessions.ts";

/** The path prefix the console answers under. */
export const CONSOLE_PATH = "/console";

/** Whether a request path belongs to the console. */
export function isConsolePath(pathname: string): boolean {
  return pathname === CONSOLE_PATH || pathname.startsWith(`${CONSOLE_PATH}/`);
}

/** The policy of every console answer: this origin only, no inline script or style, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  // Not no-referrer: with it a browser sends `Origin: null` on the login POST, which the CSRF check needs.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "cache-control": "no-store",
});

/** Static files: name → content type, and whether the login page (no session yet) may load it. */
const ASSETS: Readonly<Record<string, { readonly type: string; readonly public: boolean }>> = {
  "console.css": { type: "text/css; charset=utf-8", public: true },
  "console.js": { type: "text/javascript; charset=utf-8", public: false },
  "vendor/uPlot.iife.min.js": { type: "text/javascript; charset=utf-8", public: false },
  "vendor/uPlot.min.css": { type: "text/css; charset=utf-8", public: false },
};

const PAGES = { login: "login.html", index: "index.html" } as const;

/** The largest login form accepted, in bytes. */
const MAX_LOGIN_BYTES = 4096;

/**
 * The login form, read up to {@link MAX_LOGIN_BYTES} (a longer body is refused unread past the cap);
 * `undefined` when it cannot be read.
 */
async function readForm(request: Request): Promise<URLSearchParams | "too large" | undefined> {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= MAX_LOGIN_BYTES)) return "too large";
  const reader = request.body?.getReader();
  if (reader === undefined) return new URLSearchParams();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_LOGIN_BYTES) return "too large";
      chunks.push(value);
    }
  } catch {
    return undefined;
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** Options of a {@link ConsoleHttp}. */
export interface ConsoleHttpOptions {
  /** The live model. */
  readonly live: ConsoleLive;
  /** The sessions (default: a store with default lifetime and bound). */
  readonly sessions?: SessionStore;
  /** Where the static files are (default: `assets/` next to this module). */
  readonly assets?: URL;
}

function respond(body: BodyInit | null, status: number, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...SECURITY_HEADERS, ...headers } });
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** The console's request handler. */
export class ConsoleHttp {
  readonly #live: ConsoleLive;
  readonly #sessions: SessionStore;
  readonly #assets: URL;
  readonly #files = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  /** Creates the handler. */
  constructor(options: ConsoleHttpOptions) {
    this.#live = options.live;
    this.#sessions = options.sessions ?? new SessionStore();
    this.#assets = options.assets ?? new URL("./assets/", import.meta.url);
  }

  /** The sessions (tests). */
  get sessions(): SessionStore {
    return this.#sessions;
  }

  /** Answers one request under {@link CONSOLE_PATH} (the edge has checked its `Host`). */
  async handle(request: Request, ctx: ConsoleRequestContext): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.slice(CONSOLE_PATH.length);
    const sessionId = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
    const operator = this.#sessions.resolve(sessionId, (key) => ctx.operators.check(key));
    if (request.method === "POST") {
      if (!this.#sameOrigin(request, ctx)) return respond("forbidden: cross-origin request\n", 403, TEXT);
      if (path === "/login") return await this.#login(request, ctx);
      if (path === "/logout") {
        this.#sessions.close(sessionId);
        return respond(null, 303, { location: CONSOLE_PATH, "set-cookie": this.#cookie("", ctx, 0) });
      }
      return respond("not found\n", 404, TEXT);
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return respond("method not allowed\n", 405, { ...TEXT, allow: "GET, HEAD, POST" });
    }
    if (path === "" || path === "/") {
      return await this.#page(operator === undefined ? PAGES.login : PAGES.index, 200);
    }
    if (path === "/events") {
      if (operator === undefined) return respond("unauthorized\n", 401, TEXT);
      // A HEAD would register a stream nobody reads.
      if (request.method !== "GET") return respond("method not allowed\n", 405, { ...TEXT, allow: "GET" });
      const stream = this.#live.openStream();
      if (stream === undefined) return respond("too many open console pages\n", 503, TEXT);
      request.signal.addEventListener("abort", () => stream.close(), { once: true });
      return respond(stream.body, 200, {
        "content-type": "text/event-stream; charset=utf-8",
        "x-accel-buffering": "no",
      });
    }
    if (path === "/explain") {
      if (operator === undefined) return respond("unauthorized\n", 401, TEXT);
      const client = url.searchParams.get("client") ?? "";
      const tool = url.searchParams.get("tool") ?? "";
      if (client.length > 256 || tool.length > 512) return respond("too long\n", 400, TEXT);
      const explanation = this.#live.explain(client, tool);
      if (explanation === undefined) return respond("not found\n", 404, TEXT);
      return respond(JSON.stringify(await explanation), 200, { "content-type": "application/json" });
    }
    const name = path.startsWith("/assets/") ? path.slice("/assets/".length) : undefined;
    const asset = name === undefined ? undefined : ASSETS[name];
    if (asset === undefined || name === undefined) return respond("not found\n", 404, TEXT);
    if (!asset.public && operator === undefined) return respond("unauthorized\n", 401, TEXT);
    return respond(request.method === "HEAD" ? null : await this.#file(name), 200, {
      "content-type": asset.type,
    });
  }

  /**
   * CSRF: a state-touching POST must come from a page of this very origin. `SameSite=Strict` keeps the
   * cookie off cross-site requests; the Origin check also refuses a cross-site login (login CSRF).
   */
  #sameOrigin(request: Request, ctx: ConsoleRequestContext): boolean {
    const origin = request.headers.get("origin");
    const host = request.headers.get("host") ?? new URL(request.url).host;
    if (origin === null || origin !== `${ctx.secure ? "https" : "http"}://${host}`) return false;
    const site = request.headers.get("sec-fetch-site");
    return site === null || site === "same-origin";
  }

  async #login(request: Request, ctx: ConsoleRequestContext): Promise<Response> {
    if (ctx.retryAfterMs() > 0) {
      return await this.#page(
        PAGES.login,
        429,
        "Too many failed attempts from this address; try again later.",
      );
    }
    const form = await readForm(request);
    if (form === "too large") return respond("login form too large\n", 413, TEXT);
    const key = form?.get("key") ?? null;
    const operator = key === null || key === "" ? undefined : ctx.operators.check(key);
    if (key === null || operator === undefined) {
      // A client key, a wrong key and no key fail alike (same status, same page).
      await ctx.failed();
      return await this.#page(PAGES.login, 401, "Login failed: that is not an operator key.");
    }
    const id = this.#sessions.open(key);
    return respond(null, 303, {
      location: CONSOLE_PATH,
      "set-cookie": this.#cookie(id, ctx, this.#sessions.ttlSeconds),
    });
  }

  #cookie(id: string, ctx: ConsoleRequestContext, maxAge: number): string {
    return `${SESSION_COOKIE}=${id}; Path=${CONSOLE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${
      ctx.secure ? "; Secure" : ""
    }`;
  }

  async #page(name: string, status: number, message = ""): Promise<Response> {
    let html = new TextDecoder().decode(await this.#file(name));
    // Fixed texts only (never request input), so nothing needs escaping.
    if (message !== "") html = html.replace("<!--message-->", `<p class="error" role="alert">${message}</p>`);
    return respond(html, status, { "content-type": "text/html; charset=utf-8" });
  }

  #file(name: string): Promise<Uint8Array<ArrayBuffer>> {
    let file = this.#files.get(name);
    if (file === undefined) {
      const url = new URL(name, this.#assets);
      file = fetch(url).then(async (res) => {
        if (!res.ok) throw new Error(`console asset ${name} could not be read`);
        return new Uint8Array(await res.arrayBuffer());
      });
      // A failed read is retried on the next request rather than cached.
      file.catch(() => this.#files.delete(name));
      this.#files.set(name, file);
    }
    return file;
  }
}
