/**
 * When `deno task serve` builds the CodeMode server it serves. Building probes the executor: it spawns a
 * sandbox process (or worker) that loads the Starlark engine, tens of milliseconds of CPU. A desktop client
 * spawns the stdio server and at once asks for `initialize` and `tools/list`, which the demo answers
 * without the built server; so on stdio the build waits until the first listing has been answered (or a
 * call needs the server, or a short while has passed), and the probe does not compete with those answers.
 *
 * @module
 */
import type { ExecutorChoice, Server } from "../core/mod.ts";
import { deferredService, type Service } from "./service.ts";

/** The served server as it comes to be, and how to close it whether or not it was built. */
export interface ServerBuild {
  /** Settles with the built server once the build has started and ended. */
  readonly pending: Promise<Server>;
  /** Starts the build now, if it has not started (later calls do nothing). */
  start(): void;
  /** Closes the built server, or only its executor when the build never started. */
  close(): Promise<void>;
}

/** A build already under way. */
export function buildStarted(pending: Promise<Server>): ServerBuild {
  return {
    pending,
    start() {},
    close: () => pending.then((server) => server.close(), () => {}),
  };
}

/**
 * A build that starts on {@link ServerBuild.start}, or by itself `fallbackMs` after this call, whichever
 * comes first: a client that neither lists nor calls still finds a warm sandbox when it does.
 */
export function buildOnDemand(
  build: () => Promise<Server>,
  executor: ExecutorChoice,
  fallbackMs: number,
): ServerBuild {
  const { promise: pending, resolve } = Promise.withResolvers<Server>();
  let state: "waiting" | "started" | "closed" = "waiting";
  const start = () => {
    if (state !== "waiting") return;
    state = "started";
    clearTimeout(timer);
    // A rejected build rejects `pending`: its owner reports it, calls see `internal`.
    resolve(Promise.resolve().then(build));
  };
  const timer = setTimeout(start, fallbackMs);
  // The timer alone never keeps the process alive: stdin (or a listener) does.
  Deno.unrefTimer(timer);
  return {
    pending,
    start,
    async close() {
      if (state === "started") return await pending.then((server) => server.close(), () => {});
      state = "closed";
      clearTimeout(timer);
      // Never built: the executor has no other owner (and no sandbox yet).
      const owned = executor as { close?: () => Promise<void> };
      if (typeof owned === "object" && typeof owned.close === "function") await owned.close();
    },
  };
}

/** The served service: it waits for the build, and any call starts it. */
export function startingService(build: ServerBuild): Service {
  const deferred = deferredService(build.pending);
  return {
    search: (query) => (build.start(), deferred.search(query)),
    describe: (name) => (build.start(), deferred.describe(name)),
    execute: (subject, source, options) => (build.start(), deferred.execute(subject, source, options)),
    capabilities: () => (build.start(), deferred.capabilities!()),
  };
}

/**
 * Wraps the listing the first `tools/list` draws (the demo's, known without the build) so that the build
 * starts once that answer is on its way: a macrotask later, after the SDK has written it.
 */
export function startAfterListing<T>(list: () => Promise<T>, build: ServerBuild): () => Promise<T> {
  return () => {
    const listed = list();
    listed.finally(() => setTimeout(build.start, 0)).catch(() => {});
    return listed;
  };
}
