/**
 * Starts the `oidc-provider` fixture as a process on loopback and drives its pages over HTTP: the
 * client-credentials grant, and the development login and consent of an authorization-code flow (with
 * the cookies a browser would keep), for the end-to-end tests.
 *
 * @module
 */

/** A running provider process. */
export interface RunningProvider {
  /** Its issuer identifier. */
  readonly issuer: string;
  /** Puts a new signing key first (the old one stays published). Returns its kid. */
  rotate(): Promise<string>;
  /** A client-credentials access token for `resource`. */
  clientCredentials(scope: string): Promise<string>;
  /** Stops the process. */
  close(): Promise<void>;
}

const FIXTURE = new URL("./fixtures/provider.ts", import.meta.url).pathname;
// The project's import map pins oidc-provider and jose, wherever the tests are run from.
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Starts the provider for `resource`, with one machine client. */
export async function startProvider(
  resource: string,
  machine: { id: string; secret: string },
  extra: { format?: "jwt" | "opaque"; introspector?: { id: string; secret: string } } = {},
): Promise<RunningProvider> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, FIXTURE, JSON.stringify({ resource, machine, ...extra })],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stderr: string[] = [];
  void child.stderr.pipeTo(
    new WritableStream({ write: (chunk) => void stderr.push(new TextDecoder().decode(chunk)) }),
  ).catch(() => {});
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const timer = setTimeout(() => child.kill(), 120_000);
  while (!buffered.includes("\n")) {
    const next = await reader.read();
    if (next.done) {
      clearTimeout(timer);
      throw new Error(`the provider did not start: ${stderr.join("")}`);
    }
    buffered += next.value;
  }
  clearTimeout(timer);
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  const { issuer } = JSON.parse(buffered.slice(0, buffered.indexOf("\n"))) as { issuer: string };
  return {
    issuer,
    async rotate() {
      const res = await fetch(`${issuer}/__test/rotate`, { method: "POST" });
      return ((await res.json()) as { kid: string }).kid;
    },
    async clientCredentials(scope: string) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${machine.id}:${machine.secret}`)}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
      return body.access_token as string;
    },
    async close() {
      try {
        child.kill();
      } catch {
        // Already gone.
      }
      await child.status;
    },
  };
}

/**
 * Signs in as `login` on the provider's development pages and grants consent, starting from an
 * authorization URL; returns the URL the provider finally redirects to (the client's redirect URI with
 * the code). Cookies are kept like a browser keeps them.
 */
export async function signIn(authorizationUrl: string, login: string, redirectPrefix: string): Promise<URL> {
  const cookies = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  let url = authorizationUrl;
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(redirectPrefix)) return new URL(url);
    const res = await send(url);
    const location = res.headers.get("location");
    if (location !== null) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    const page = await res.text();
    const action = /action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined) {
      throw new Error(`unexpected page ${res.status}: ${page.slice(0, 300)}`);
    }
    const form: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt };
    const submitted = await send(new URL(action, url).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    const next = submitted.headers.get("location");
    await submitted.body?.cancel();
    if (next === null) throw new Error(`the ${prompt} form answered ${submitted.status} without a redirect`);
    url = new URL(next, url).href;
  }
  throw new Error("sign-in did not finish");
}
