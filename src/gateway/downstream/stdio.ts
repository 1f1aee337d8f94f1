/**
 * A stdio client transport for downstream MCP servers, spawned with `Deno.Command` in a session and
 * process group of their own so that the whole group (the server and anything it forks, such as the
 * `node` a `deno run npm:` launcher may start) can be signalled at once and none of it outlives the
 * gateway. The SDK's own `StdioClientTransport` cannot do that: it spawns into the gateway's group.
 *
 * A gateway that dies without running its exit path (`kill -9`, an OOM kill) cannot signal anything, and
 * a child may ignore both the end of its stdin and SIGTERM. So each child runs under a watchdog: a POSIX
 * `sh` that leads the group, starts the server in it, and ends the whole group with SIGKILL as soon as
 * it is no longer the gateway's child (the kernel re-parents it at the gateway's death, zombie or not).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { malformedAnswer, oversizedAnswer, TopLevelIdScanner } from "./frame_cap.ts";

/** What {@link StdioProcessTransport} spawns. */
export interface StdioProcessOptions {
  /** The program to run (looked up on the child's `PATH`). */
  readonly command: string;
  /** Its arguments. */
  readonly args: readonly string[];
  /** The complete child environment: nothing of the gateway's is inherited beyond it. */
  readonly env: Readonly<Record<string, string>>;
  /** Working directory (default: the gateway's). */
  readonly cwd?: string;
  /**
   * Largest single JSON-RPC line accepted from the child, in bytes (default 64 MiB), read per line so a
   * reload applies at once. A longer line is read on and discarded as it arrives, never buffered.
   */
  readonly maxLineBytes?: number | (() => number);
  /**
   * Called when an answer was discarded for its size, with its request id and its length in bytes; an
   * error answer (`result too large`) for that id is delivered in its place so that its call ends at once.
   */
  readonly onOversized?: (id: string | number, bytes: number) => void;
  /**
   * Called when an answer for request `id` did not parse as JSON-RPC; an error answer for that id is
   * delivered in its place so that its call ends at once.
   */
  readonly onMalformed?: (id: string | number) => void;
  /** Milliseconds between SIGTERM to the group and SIGKILL on close (default 2000). */
  readonly killGraceMs?: number;
  /** Receives each stderr chunk; stderr is drained and dropped without it (it may carry secrets). */
  readonly onStderr?: (chunk: Uint8Array) => void;
}

/** The process groups of every live child, so an exiting gateway can signal all of them. */
const liveGroups = new Set<number>();

/** Sends SIGKILL to every live downstream process group (for exit paths that cannot await). */
export function killAllProcessGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

/** The number of downstream process groups currently alive (for tests and metrics). */
export function liveProcessGroupCount(): number {
  return liveGroups.size;
}

function signalGroup(pgid: number, signal: Deno.Signal): void {
  try {
    // A negative pid addresses the process group the detached child leads.
    Deno.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The watchdog's shell: POSIX `sh`, present on every Debian system (nothing to install). */
const WATCHDOG_SHELL = "/bin/sh";
/** How often the watchdog looks at its parent, in seconds (well within the 2 s the children may outlive it). */
const WATCHDOG_POLL_S = "0.2";

/**
 * The watchdog script, run as `sh -c SCRIPT codemode-watchdog GATEWAY_PID KEEP_PWD COMMAND ARGS...`
 * (`KEEP_PWD` is 1 when the configured environment has `PWD`: the shell sets and exports its own, which
 * the server must not inherit when it was not given one).
 *
 * It starts the server in the background with the gateway's pipes (stdin through fd 3: a background
 * job's stdin is /dev/null before its own redirections apply, so `<&0` would not do), keeps none of them
 * open itself (so the gateway sees end-of-file when the server exits), and waits for the server,
 * surviving the group's SIGTERM (a trap, not an ignore: an ignored signal would be ignored by the server
 * too). A second shell polls the first one's parent in `/proc/<pid>/stat`; once it is not the gateway any
 * more (the kernel re-parents at the gateway's death, whether or not the gateway was reaped yet),
 * `kill -KILL 0` ends the group, descendants included. Without `/proc` (not Linux) it polls the
 * gateway's pid instead.
 */
const WATCHDOG_SCRIPT = `gw=$1; [ "$2" = 1 ] || unset PWD; shift 2
command -v "$1" >/dev/null 2>&1 || exit 127
trap : TERM INT HUP
exec 3<&0
"$@" <&3 3<&- &
child=$!
main=$$
(
  trap : TERM INT HUP
  exec 3<&- </dev/null >/dev/null 2>&1
  if [ -r "/proc/$main/stat" ]; then
    while read -r _ _ _ ppid _ <"/proc/$main/stat" && [ "$ppid" = "$gw" ]; do sleep ${WATCHDOG_POLL_S}; done
  else
    while kill -0 "$gw" 2>/dev/null; do sleep ${WATCHDOG_POLL_S}; done
  fi
  kill -KILL 0
) &
watch=$!
exec 3<&- </dev/null >/dev/null 2>&1
while :; do
  wait "$child"; status=$?
  kill -0 "$child" 2>/dev/null || break
done
kill -KILL "$watch" 2>/dev/null
exit "$status"
`;

let shellPresent: boolean | undefined;

/** Whether the watchdog's shell exists (without it, children are spawned directly, as before). */
function watchdogAvailable(): boolean {
  if (shellPresent === undefined) {
    try {
      shellPresent = Deno.statSync(WATCHDOG_SHELL).isFile;
    } catch {
      shellPresent = false;
    }
  }
  return shellPresent;
}

/**
 * The program and arguments that run `command args` under the watchdog of this gateway process;
 * `keepPwd` says whether the child's configured environment sets `PWD` itself.
 */
export function watchdogCommand(
  command: string,
  args: readonly string[],
  keepPwd = false,
): { command: string; args: string[] } {
  const pwd = keepPwd ? "1" : "0";
  return {
    command: WATCHDOG_SHELL,
    args: ["-c", WATCHDOG_SCRIPT, "codemode-watchdog", String(Deno.pid), pwd, command, ...args],
  };
}

const NEWLINE = 0x0a;
/** The size of the reusable buffer a child's stdout is read into. */
const READ_BUFFER_BYTES = 64 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * An SDK `Transport` over a child's stdin/stdout with newline-delimited JSON-RPC, the child running
 * detached (`setsid`) so that {@link StdioProcessTransport.close} can end its whole process group.
 */
export class StdioProcessTransport implements Transport {
  /** Set by the SDK: called once the child's stdout closes or the transport is closed. */
  onclose?: () => void;
  /** Set by the SDK: transport-level failures. */
  onerror?: (error: Error) => void;
  /** Set by the SDK: each message received. */
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: StdioProcessOptions;
  readonly #maxLine: () => number;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #pumps: Promise<unknown>[] = [];
  #exit: Promise<Deno.CommandStatus> | undefined;

  /** Prepares the transport; `start()` (called by the SDK client's `connect`) spawns the child. */
  constructor(options: StdioProcessOptions) {
    this.#options = options;
    const max = options.maxLineBytes ?? 64 * 1024 * 1024;
    this.#maxLine = typeof max === "number" ? () => max : max;
  }

  /** The pid of the child's watchdog (the leader of its process group), once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Resolves with the child's exit status once it has exited. */
  get exited(): Promise<Deno.CommandStatus> | undefined {
    return this.#exit;
  }

  /** Spawns the child. Throws when the program cannot be started. */
  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error("transport already started");
    const o = this.#options;
    const run = watchdogAvailable()
      ? watchdogCommand(o.command, o.args, Object.hasOwn(o.env, "PWD"))
      : { command: o.command, args: [...o.args] };
    const child = new Deno.Command(run.command, {
      args: run.args,
      env: { ...o.env },
      clearEnv: true,
      cwd: o.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    this.#child = child;
    liveGroups.add(child.pid);
    this.#writer = child.stdin.getWriter();
    this.#exit = child.status.then((status) => {
      // The leader is gone; a forked grandchild may still hold the group, so it is signalled too.
      signalGroup(child.pid, "SIGKILL");
      liveGroups.delete(child.pid);
      return status;
    });
    this.#pumps = [this.#readStdout(child.stdout), this.#drainStderr(child.stderr)];
    return Promise.resolve();
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    // Set while the rest of an oversized line is read and dropped: only its id is kept.
    let discarding: TopLevelIdScanner | undefined;
    // One read buffer, reused: a downstream that streams hundreds of megabytes leaves no garbage behind
    // (what a line keeps is copied out of it).
    const reader = stream.getReader({ mode: "byob" });
    let buffer = new Uint8Array(READ_BUFFER_BYTES);
    try {
      for (;;) {
        const { done, value: chunk } = await reader.read(buffer);
        if (done || chunk === undefined) break;
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(NEWLINE, start);
          const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
          if (discarding !== undefined) {
            discarding.push(piece);
          } else {
            pending.push(piece.slice());
            pendingBytes += piece.length;
            if (pendingBytes > this.#maxLine()) {
              discarding = new TopLevelIdScanner();
              for (const p of pending) discarding.push(p);
              pending = [];
              pendingBytes = 0;
            }
          }
          if (newline === -1) break;
          if (discarding !== undefined) this.#dropOversized(discarding);
          else this.#deliver(join(pending, pendingBytes));
          discarding = undefined;
          pending = [];
          pendingBytes = 0;
          start = newline + 1;
        }
        buffer = new Uint8Array(chunk.buffer);
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    } finally {
      try {
        reader.releaseLock();
      } catch {
        // Nothing is pending; the stream is done either way.
      }
      void this.close();
    }
  }

  /**
   * An over-long line was read and dropped. An answer is replaced by an error answer for its id, so
   * that its call ends now rather than at its timeout; anything else (a request, a notification, a
   * line without a usable id) is only reported.
   */
  #dropOversized(scanner: TopLevelIdScanner): void {
    const id = scanner.id;
    if (id === undefined || scanner.hasMethod) {
      this.onerror?.(new Error(`downstream message of ${scanner.bytes} bytes exceeds the limit, dropped`));
      return;
    }
    this.#options.onOversized?.(id, scanner.bytes);
    this.onmessage?.(oversizedAnswer(id) as JSONRPCMessage);
  }

  #deliver(line: Uint8Array): void {
    const text = decoder.decode(line).replace(/\r$/, "");
    if (text.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
      this.onmessage?.(JSONRPCMessageSchema.parse(parsed));
    } catch {
      // A server that prints non-protocol text on stdout breaks only that line, not the session. An
      // answer that does not parse but names a request ends that call now (as a transport failure)
      // rather than at its timeout.
      this.onerror?.(new Error("downstream wrote a line that is not JSON-RPC"));
      const m = parsed as { id?: unknown; method?: unknown } | null | undefined;
      const id = m?.id;
      if (m?.method === undefined && (typeof id === "string" || Number.isSafeInteger(id))) {
        this.#options.onMalformed?.(id as string | number);
        this.onmessage?.(malformedAnswer(id as string | number) as JSONRPCMessage);
      }
    }
  }

  async #drainStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) this.#options.onStderr?.(chunk);
    } catch {
      // The pipe broke because the child died; nothing to report.
    }
  }

  /** SIGKILL to the whole group at once, no grace period (a simulated crash in tests). */
  kill(): void {
    if (this.#child !== undefined) signalGroup(this.#child.pid, "SIGKILL");
  }

  /** Writes one message as a JSON line. */
  async send(message: JSONRPCMessage): Promise<void> {
    const writer = this.#writer;
    if (writer === undefined || this.#closed) throw new Error("transport is not connected");
    await writer.write(encoder.encode(JSON.stringify(message) + "\n"));
  }

  /**
   * Ends the child: closes its stdin (a well-behaved server exits on EOF), then SIGTERM to the whole
   * group, then SIGKILL after the grace period. Resolves once the child has exited.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const child = this.#child;
    if (child !== undefined) {
      await this.#writer?.close().catch(() => {});
      const exit = this.#exit!;
      const exitedSoon = await raceTimeout(exit, 100);
      if (!exitedSoon) {
        signalGroup(child.pid, "SIGTERM");
        if (!(await raceTimeout(exit, this.#options.killGraceMs ?? 2000))) signalGroup(child.pid, "SIGKILL");
      }
      await exit;
      await Promise.allSettled(this.#pumps);
    }
    this.onclose?.();
  }
}

function join(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function raceTimeout(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
