/**
 * The sandbox process: a Deno child process started with no permission flags (so it may not read,
 * write, connect, read the environment, spawn, load native code or query the system) and a V8 heap cap.
 * It runs one Starlark program at a time for the process pool, talking over stdin/stdout in the frames
 * of `src/executor/process_protocol.ts`.
 *
 * Everything here is synchronous: the child blocks in `Deno.stdin.readSync` for the next frame, and a
 * native call writes its frame and blocks there again for the reply, so the engine sees a synchronous
 * call. While the engine computes nobody reads stdin; the engine stops on its own copy of the deadline,
 * and the host kills the process with SIGKILL when that does not happen in time.
 *
 * Arguments: `--warm-up=MS` spends up to MS milliseconds optimizing the engine before reporting ready.
 * When V8 is started with `--expose-gc`, a run that grew the heap is followed by a full collection so
 * that an idle child gives its memory back (after the result is sent, unless the heap is large enough
 * for its size to decide whether the host keeps the child).
 *
 * @module
 */
import { memoryAfterRunDeferred, noteBaselineHeap } from "./memory.ts";
import {
  CatalogCache,
  interruptedError,
  NativeFailure,
  runProgram,
  warmUp,
} from "../src/executor/program.ts";
import type { RunOutcome, SelfCheckReport } from "../src/executor/protocol.ts";
import {
  encodeFrame,
  type Frame,
  FrameError,
  type ProcCallHeader,
  type ProcDoneHeader,
  type ProcOutcome,
  type ProcRunHeader,
  SyncFrameReader,
} from "../src/executor/process_protocol.ts";

// The host is trusted; these bounds only stop a corrupt stream from allocating without limit.
const MAX_INPUT_BYTES = 1 << 30;
const input = new SyncFrameReader((buf) => Deno.stdin.readSync(buf), MAX_INPUT_BYTES, MAX_INPUT_BYTES);

function send<H extends { readonly t: string }>(header: H, payload?: Uint8Array): void {
  const bytes = encodeFrame(header, payload);
  let off = 0;
  while (off < bytes.length) off += Deno.stdout.writeSync(bytes.subarray(off));
}

const catalogs = new CatalogCache();

/** Blocks for the reply to call `seq`. */
function awaitReply(seq: number): Uint8Array {
  const frame: Frame | null = input.next();
  if (frame === null) throw interruptedError("shutdown");
  const h = frame.header;
  if (h.t === "interrupt") throw interruptedError(typeof h.reason === "string" ? h.reason : "shutdown");
  if (h.t !== "reply" || h.seq !== seq) throw new Error(`protocol: expected the reply to call ${seq}`);
  if (typeof h.code === "string") throw new NativeFailure(h.code);
  return frame.payload;
}

function run(msg: ProcRunHeader): void {
  const deadline = performance.now() + msg.remainingMs;
  let seq = 0;
  let outcome: RunOutcome;
  try {
    outcome = runProgram({
      source: msg.source,
      env: catalogs.envFor(msg.catalog),
      budgets: msg.budgets,
      maxMemoryBytes: msg.maxMemoryBytes,
      checkInterrupt: () => (performance.now() >= deadline ? "deadline" : undefined),
      native: (cap, args) => {
        const s = ++seq;
        send({ t: "call", id: msg.id, seq: s, cap } satisfies ProcCallHeader, args);
        return awaitReply(s);
      },
      dialect: msg.dialect,
    });
  } catch (err) {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    outcome = { ok: false, kind: "internal", message, steps: 0 };
  }
  const { value, head } = outcome.ok
    ? {
      value: outcome.value,
      head: {
        ok: true as const,
        steps: outcome.steps,
        ...(outcome.output === undefined ? {} : { output: outcome.output }),
      },
    }
    : { value: undefined, head: outcome as ProcOutcome };
  const { collect, ...memory } = memoryAfterRunDeferred();
  send({ t: "done", id: msg.id, outcome: head, ...memory } satisfies ProcDoneHeader, value);
  collect?.(); // while the host reads the result, not before
}

/** Tries each privileged operation; harmless even if one were allowed (nothing is created or changed). */
function selfCheck(): SelfCheckReport {
  const probes: [string, () => unknown][] = [
    ["read", () => Deno.readDirSync("/")[Symbol.iterator]().next()],
    ["write", () => Deno.mkdirSync("/nonexistent-codemode-selfcheck/dir")],
    ["net", () => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close()],
    ["env", () => Deno.env.toObject()],
    ["run", () => new Deno.Command("/nonexistent-codemode-selfcheck/bin").outputSync()],
    ["ffi", () => Deno.dlopen("/nonexistent-codemode-selfcheck.so", {}).close()],
    ["sys", () => Deno.osRelease()],
  ];
  const report: Record<string, { refused: boolean; detail: string }> = {};
  for (const [name, probe] of probes) {
    try {
      probe();
      report[name] = { refused: false, detail: "allowed" };
    } catch (e) {
      const refused = e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
      report[name] = { refused, detail: e instanceof Error ? e.name : String(e) };
    }
  }
  return report;
}

function main(): number {
  const warm = Number(/^--warm-up=(\d+)$/.exec(Deno.args.find((a) => a.startsWith("--warm-up=")) ?? "")?.[1]);
  if (warm > 0) warmUp(warm);
  noteBaselineHeap();
  send({ t: "ready" });
  for (;;) {
    let frame: Frame | null;
    try {
      frame = input.next();
    } catch (e) {
      if (e instanceof FrameError) return 3;
      throw e;
    }
    if (frame === null) return 0; // the host closed stdin: a clean end
    const h = frame.header;
    switch (h.t) {
      case "run":
        run(h as unknown as ProcRunHeader);
        break;
      case "selfcheck":
        send({ t: "selfcheck", report: selfCheck() });
        break;
      case "interrupt":
        break; // arrived after the run it was meant for had ended
      default:
        return 3;
    }
  }
}

Deno.exit(main());
