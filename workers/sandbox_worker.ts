/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * The sandbox worker: runs one Starlark program at a time for the executor's pool, inside a Web Worker
 * spawned with `deno: { permissions: "none" }`.
 *
 * Programs never reach JS: the engine exposes no `eval`, no `import()` and no Deno API. A native call
 * writes its encoded arguments into the shared buffer (or posts them, when they do not fit) and blocks
 * on the buffer until the host writes the result (see `src/executor/protocol.ts`). The engine polls the
 * buffer's interrupt flag and this worker's own copy of the deadline, so a cancelled or overdue program
 * stops within a few thousand steps even when the host's event loop is busy.
 *
 * @module
 */
import { idleRelease, memoryAfterRun, noteBaselineHeap } from "./memory.ts";
import {
  CatalogCache,
  interruptedError,
  NativeFailure,
  runProgram,
  warmUp,
} from "../src/executor/program.ts";
import {
  type CallMessage,
  type DoneMessage,
  type HostMessage,
  interruptName,
  type MoreMessage,
  type RunMessage,
  type SelfCheckReport,
  SharedChannel,
  type WorkerMessage,
} from "../src/executor/protocol.ts";

/** Milliseconds of work between two naps of a throttled run. */
const SLICE_MS = 2;
/** Longest single nap of a throttled run. */
const MAX_NAP_MS = 20;

let channel: SharedChannel | undefined;
const catalogs = new CatalogCache();

function post(msg: WorkerMessage, transfer: Transferable[] = []): void {
  self.postMessage(msg, transfer);
}

function run(msg: RunMessage): void {
  const ch = channel;
  if (ch === undefined) throw new Error("run before init");
  idleRelease.cancel();
  const deadline = performance.now() + msg.remainingMs;
  const id = msg.id;
  let seq = 0;

  // Throttling (see I_DUTY): after each slice of work, sleep long enough to keep to the allowed share.
  let sliceStart = performance.now();
  const checkInterrupt = (): string | undefined => {
    const r = ch.interruptReason();
    if (r !== 0) return interruptName(r);
    let now = performance.now();
    if (now >= deadline) return "deadline";
    const duty = ch.duty();
    if (duty > 0 && duty < 1000) {
      const worked = now - sliceStart;
      if (worked >= SLICE_MS) {
        const nap = Math.min((worked * (1000 - duty)) / duty, MAX_NAP_MS, deadline - now);
        if (nap > 0) ch.nap(nap);
        now = performance.now();
        sliceStart = now;
        const again = ch.interruptReason();
        if (again !== 0) return interruptName(again);
        if (now >= deadline) return "deadline";
      }
    } else sliceStart = now;
    return undefined;
  };

  const native = (cap: number, args: Uint8Array): Uint8Array => {
    const s = ++seq;
    if (!ch.beginCall()) throw interruptedError(interruptName(ch.interruptReason()));
    // Through the shared buffer when the arguments fit; a larger map travels as a message.
    if (!ch.postCall(s, cap, args)) {
      post({ t: "call", id, seq: s, cap, args } satisfies CallMessage, [args.buffer as ArrayBuffer]);
    }
    const reply = ch.awaitReply(s, msg.budgets.maxValueBytes, deadline, (offset) => {
      post({ t: "more", id, seq: s, offset } satisfies MoreMessage);
    });
    switch (reply.kind) {
      case "ok":
        return reply.bytes;
      case "error":
        throw new NativeFailure(reply.code);
      case "interrupted":
        throw interruptedError(reply.reason);
    }
  };

  const outcome = runProgram({
    source: msg.source,
    env: catalogs.envFor(msg.catalog),
    budgets: msg.budgets,
    maxMemoryBytes: msg.maxMemoryBytes,
    checkInterrupt,
    native,
    dialect: msg.dialect,
  });
  if (outcome.ok) {
    post({ t: "done", id, outcome } satisfies DoneMessage, [outcome.value.buffer as ArrayBuffer]);
  } else {
    post({ t: "done", id, outcome, heapUsed: memoryAfterRun().heapUsed } satisfies DoneMessage);
  }
  idleRelease.schedule();
}

function attempt(fn: () => unknown): { refused: boolean; detail: string } {
  try {
    const r = fn();
    if (r instanceof Deno.FsFile || (typeof r === "object" && r !== null && "close" in r)) {
      (r as { close(): void }).close();
    }
    return { refused: false, detail: "allowed" };
  } catch (e) {
    const refused = e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
    return { refused, detail: e instanceof Error ? e.name : String(e) };
  }
}

// Each operation is harmless even if it were allowed: nothing is created or changed.
function selfCheck(): SelfCheckReport {
  return {
    read: attempt(() => Deno.statSync("/")),
    write: attempt(() => Deno.removeSync("/nonexistent-codemode-selfcheck")),
    net: attempt(() => Deno.listen({ hostname: "127.0.0.1", port: 0 })),
    env: attempt(() => Deno.env.get("PATH")),
    run: attempt(() => new Deno.Command("/nonexistent-codemode-selfcheck/bin").outputSync()),
    ffi: attempt(() => Deno.dlopen("/nonexistent-codemode-selfcheck.so", {})),
    sys: attempt(() => Deno.hostname()),
  };
}

self.onmessage = (e: MessageEvent<HostMessage>) => {
  const msg = e.data;
  try {
    switch (msg.t) {
      case "init":
        channel = new SharedChannel(msg.buffer);
        if (msg.warmUpMs > 0) warmUp(msg.warmUpMs);
        noteBaselineHeap();
        post({ t: "ready" });
        return;
      case "selfcheck":
        post({ t: "selfcheck", report: selfCheck() });
        return;
      case "run":
        run(msg);
        return;
    }
  } catch (err) {
    const id = msg.t === "run" ? msg.id : -1;
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    post({ t: "done", id, outcome: { ok: false, kind: "internal", message, steps: 0 } });
  }
};
