/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * Worker side of `depth_worker_test.ts`: runs each program it is sent with recursion on and answers
 * with the value of `x`, or the error's class, resource kind and message.
 *
 * @module
 */
import { execFile, ResourceError } from "../../src/starlark/mod.ts";

interface Job {
  src: string;
}

self.onmessage = (ev: MessageEvent<Job>) => {
  try {
    const { globals } = execFile(ev.data.src, { dialect: { recursion: true } });
    self.postMessage({ ok: globals.get("x") });
  } catch (e) {
    self.postMessage({
      error: (e as Error).constructor.name,
      resource: e instanceof ResourceError ? e.resource : undefined,
      message: (e as Error).message,
    });
  }
};
