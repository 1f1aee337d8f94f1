/**
 * Starts `@stoplight/prism-cli` (a validating OpenAPI mock server, run under Node) on a free loopback
 * port. Prism comes from the npm install in `.cache/prism` that `.ci/run` makes
 * (`npm install --prefix .cache/prism @stoplight/prism-cli@PRISM_VERSION`); a missing install fails the
 * test with the command that fixes it.
 *
 * @module
 */
const ROOT = new URL("../../", import.meta.url);

/** The prism-cli version `.ci/run` installs. */
export const PRISM_VERSION = "5.16.0";
/** Where `.ci/run` installs it. */
export const PRISM_DIR = new URL(".cache/prism/", ROOT).pathname;
const PRISM_ENTRY = `${PRISM_DIR}node_modules/@stoplight/prism-cli/dist/index.js`;

/** A running prism mock. */
export interface Prism {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Everything prism logged so far (its request validation reports included). */
  log(): string;
  /** Stops it. */
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Starts prism mocking `document` with request validation on (`--errors`: violations are errors). */
export async function startPrism(document: string): Promise<Prism> {
  try {
    await Deno.stat(PRISM_ENTRY);
  } catch {
    throw new Error(
      `prism is not installed at ${PRISM_DIR}: run \`npm install --prefix .cache/prism ` +
        `@stoplight/prism-cli@${PRISM_VERSION}\` (.ci/run does)`,
    );
  }
  const port = freePort();
  const child = new Deno.Command("node", {
    args: [PRISM_ENTRY, "mock", "--host", "127.0.0.1", "--port", String(port), "--errors", document],
    cwd: ROOT.pathname,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const deadline = Date.now() + 60_000;
  while (!/Prism is listening/.test(text)) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.status;
      throw new Error(`prism did not start within 60 s: ${text.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      await child.status;
      await drained;
    },
  };
}
