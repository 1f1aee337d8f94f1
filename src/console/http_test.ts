/**
 * The console's HTTP side without a gateway: only an operator key opens a session (a client key fails
 * exactly like a wrong key or none), the login is refused from another origin (CSRF), the cookie is
 * `HttpOnly; SameSite=Strict` (and `Secure` over TLS), sessions end on expiry and when their key stops
 * being an operator's, every answer carries the strict CSP, and the page's assets and events need a
 * session.
 */
import assert from "node:assert/strict";
import type { ConsoleRequestContext, OperatorIdentity } from "./domain.ts";
import { ConsoleHttp, CONTENT_SECURITY_POLICY } from "./http.ts";
import { ConsoleLive } from "./live.ts";
import { SessionStore } from "./sessions.ts";

const ORIGIN = "http://127.0.0.1:8080";
const OPERATOR_KEY = "operator-key-0123456789abcdef";
const CLIENT_KEY = "client-key-0123456789abcdefgh";

function harness(options: { secure?: boolean; now?: () => number } = {}) {
  const operators = new Map<string, OperatorIdentity>([[OPERATOR_KEY, { id: "ops" }]]);
  const failures: string[] = [];
  let wait = 0;
  const ctx: ConsoleRequestContext = {
    operators: { check: (key) => operators.get(key) },
    retryAfterMs: () => wait,
    failed: () => {
      failures.push("failed");
      return Promise.resolve();
    },
    secure: options.secure ?? false,
  };
  const live = new ConsoleLive({
    downstreams: () => [],
    config: () => ({}),
    breakerOpenMs: () => 1000,
  });
  const http = new ConsoleHttp({ live, sessions: new SessionStore({ ttlMs: 60_000, now: options.now }) });
  const origin = options.secure ? ORIGIN.replace("http:", "https:") : ORIGIN;
  const request = (path: string, init: RequestInit & { cookie?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set("host", "127.0.0.1:8080");
    if (init.cookie !== undefined) headers.set("cookie", init.cookie);
    return http.handle(new Request(`${origin}${path}`, { ...init, headers }), ctx);
  };
  const login = (key: string, headers: Record<string, string> = { origin }) =>
    request("/console/login", {
      method: "POST",
      body: new URLSearchParams({ key }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    });
  return {
    http,
    live,
    operators,
    failures,
    request,
    login,
    origin,
    setWait: (ms: number) => (wait = ms),
  };
}

async function cookieOf(res: Response): Promise<string> {
  await res.body?.cancel();
  const header = res.headers.get("set-cookie");
  assert.ok(header, "a cookie was set");
  return header.split(";")[0];
}

async function answer(res: Response) {
  return { status: res.status, body: await res.text(), cookie: res.headers.get("set-cookie") };
}

Deno.test("console http: only an operator key opens a session; a client key fails like a wrong key", async () => {
  const h = harness();
  try {
    const refused = await answer(await h.login(CLIENT_KEY));
    assert.equal(refused.status, 401);
    assert.equal(refused.cookie, null);
    assert.match(refused.body, /Login failed/);
    for (const key of ["", `${OPERATOR_KEY}x`, OPERATOR_KEY.slice(0, -1), "wrong"]) {
      assert.deepEqual(await answer(await h.login(key)), refused, `key ${JSON.stringify(key)}`);
    }
    assert.equal(h.failures.length, 5, "each failure is counted");
    const ok = await h.login(OPERATOR_KEY);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/console");
    const header = ok.headers.get("set-cookie")!;
    assert.match(
      header,
      /^codemode_console=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=60; HttpOnly; SameSite=Strict$/,
    );
    const cookie = await cookieOf(ok);
    const page = await (await h.request("/console", { cookie })).text();
    assert.match(page, /console\.js/);
    // Without the cookie (or with a made-up one) the login form is shown instead.
    for (const other of [undefined, "codemode_console=forged", `${cookie}x`]) {
      const res = await h.request("/console", { cookie: other });
      const text = await res.text();
      assert.match(text, /name="key"/);
      assert.doesNotMatch(text, /console\.js/);
    }
  } finally {
    h.live.close();
  }
});

Deno.test("console http: the session cookie is Secure over TLS; session ids are random", async () => {
  const h = harness({ secure: true });
  try {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await h.login(OPERATOR_KEY);
      assert.match(res.headers.get("set-cookie")!, /; HttpOnly; SameSite=Strict; Secure$/);
      ids.add(await cookieOf(res));
    }
    assert.equal(ids.size, 20);
  } finally {
    h.live.close();
  }
});

Deno.test("console http: a login from another origin is refused (CSRF)", async () => {
  const h = harness();
  try {
    const cases: Record<string, string>[] = [
      {},
      { origin: "http://evil.example" },
      { origin: "null" },
      { origin: "http://127.0.0.1:8081" },
      { origin: "https://127.0.0.1:8080" },
      { origin: ORIGIN, "sec-fetch-site": "cross-site" },
      { origin: ORIGIN, "sec-fetch-site": "same-site" },
    ];
    for (const headers of cases) {
      const res = await h.login(OPERATOR_KEY, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.headers.get("set-cookie"), null);
      await res.body?.cancel();
    }
    assert.equal(h.http.sessions.size, 0);
    const ok = await h.login(OPERATOR_KEY, { origin: ORIGIN, "sec-fetch-site": "same-origin" });
    assert.equal(ok.status, 303);
    await ok.body?.cancel();
  } finally {
    h.live.close();
  }
});

Deno.test("console http: sessions end when they expire, when their key is removed, and on logout", async () => {
  let now = 0;
  const h = harness({ now: () => now });
  try {
    const first = await cookieOf(await h.login(OPERATOR_KEY));
    const events = async (cookie: string) => {
      const res = await h.request("/console/events", { cookie });
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await events(first), 200);
    now += 60_001;
    assert.equal(await events(first), 401);
    const second = await cookieOf(await h.login(OPERATOR_KEY));
    assert.equal(await events(second), 200);
    // A reload removed (or rotated) the key: the session is refused from the next request on.
    h.operators.delete(OPERATOR_KEY);
    assert.equal(await events(second), 401);
    h.operators.set(OPERATOR_KEY, { id: "ops" });
    assert.equal(await events(second), 401, "a refused session is forgotten");
    const third = await cookieOf(await h.login(OPERATOR_KEY));
    const out = await h.request("/console/logout", {
      method: "POST",
      cookie: third,
      headers: { origin: ORIGIN },
    });
    assert.equal(out.status, 303);
    assert.match(out.headers.get("set-cookie")!, /Max-Age=0/);
    await out.body?.cancel();
    assert.equal(await events(third), 401);
  } finally {
    h.live.close();
  }
});

Deno.test("console http: every answer has the strict CSP; assets and events need a session", async () => {
  const h = harness();
  try {
    const cookie = await cookieOf(await h.login(OPERATOR_KEY));
    const paths = [
      "/console",
      "/console/",
      "/console/assets/console.css",
      "/console/assets/console.js",
      "/console/assets/vendor/uPlot.iife.min.js",
      "/console/assets/vendor/uPlot.min.css",
      "/console/assets/../http.ts",
      "/console/assets/login.html",
      "/console/nope",
      "/console/explain?client=alice&tool=echo__echo",
    ];
    const statuses: Record<string, [number, number]> = {};
    for (const path of paths) {
      const results: number[] = [];
      for (const c of [undefined, cookie]) {
        const res = await h.request(path, { cookie: c });
        assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY, path);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        assert.equal(res.headers.get("x-frame-options"), "DENY");
        await res.body?.cancel();
        results.push(res.status);
      }
      statuses[path] = results as [number, number];
    }
    assert.deepEqual(statuses, {
      "/console": [200, 200],
      "/console/": [200, 200],
      "/console/assets/console.css": [200, 200],
      "/console/assets/console.js": [401, 200],
      "/console/assets/vendor/uPlot.iife.min.js": [401, 200],
      "/console/assets/vendor/uPlot.min.css": [401, 200],
      // URL parsing folds `..` away: this is /console/http.ts, which is no asset.
      "/console/assets/../http.ts": [404, 404],
      "/console/assets/login.html": [404, 404],
      "/console/nope": [404, 404],
      // This harness's gateway offers no explanations; without a session nothing is said either way.
      "/console/explain?client=alice&tool=echo__echo": [401, 404],
    });
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'self'/);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|https?:/);
    const res = await h.request("/console/events", { cookie });
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    await res.body?.cancel();
    const head = await h.request("/console/events", { method: "HEAD", cookie });
    assert.equal(head.status, 405);
    assert.equal(h.live.streams, 0, "a HEAD opens no stream, and the cancelled GET's stream is gone");
    const put = await h.request("/console", { method: "PUT", cookie });
    assert.equal(put.status, 405);
    await put.body?.cancel();
  } finally {
    h.live.close();
  }
});

Deno.test("console http: the pages hold no inline script or style", async () => {
  for (const name of ["index.html", "login.html"]) {
    const html = await Deno.readTextFile(new URL(`./assets/${name}`, import.meta.url));
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)/i, `${name}: inline script`);
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, `${name}: inline style or handler`);
    for (const m of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      assert.match(m[1], /^\/console(\/|$)/, `${name}: ${m[1]} is of this origin`);
    }
  }
});

Deno.test("console http: a rate-limited address is refused before its key is looked at; big forms too", async () => {
  const h = harness();
  try {
    h.setWait(5000);
    const limited = await h.login(OPERATOR_KEY);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("set-cookie"), null);
    assert.match(await limited.text(), /Too many failed attempts/);
    h.setWait(0);
    const big = await h.login("k".repeat(5000));
    assert.equal(big.status, 413);
    await big.body?.cancel();
    assert.equal(h.http.sessions.size, 0);
  } finally {
    h.live.close();
  }
});
