/**
 * A stdio client transport for downstream MCP servers, spawned with `Deno.Command` in a session and
 * process group of their own so that the whole group (the server and anything it forks, such as the
 * `node` a `deno run npm:` launcher may start) can be signalled at once and none of it outlives the
 * gateway. The SDK's own `StdioClientTransport` cannot do that: it spawns into the gateway's group.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

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
  /** Largest single JSON-RPC line accepted from the child, in bytes (default 64 MiB). */
  readonly maxLineBytes?: number;
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

const NEWLINE = 0x0a;
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
  readonly #maxLine: number;
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #pumps: Promise<unknown>[] = [];
  #exit: Promise<Deno.CommandStatus> | undefined;

  /** Prepares the transport; `start()` (called by the SDK client's `connect`) spawns the child. */
  constructor(options: StdioProcessOptions) {
    this.#options = options;
    this.#maxLine = options.maxLineBytes ?? 64 * 1024 * 1024;
  }

  /** The child's pid (also its process-group id), once started. */
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
    const child = new Deno.Command(o.command, {
      args: [...o.args],
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
    try {
      for await (const chunk of stream) {
        let start = 0;
        for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
          pending.push(chunk.subarray(start, i));
          this.#deliver(join(pending, pendingBytes + i - start));
          pending = [];
          pendingBytes = 0;
          start = i + 1;
        }
        if (start < chunk.length) {
          pending.push(chunk.subarray(start));
          pendingBytes += chunk.length - start;
          if (pendingBytes > this.#maxLine) {
            throw new Error(`downstream message exceeds ${this.#maxLine} bytes`);
          }
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    } finally {
      void this.close();
    }
  }

  #deliver(line: Uint8Array): void {
    const text = decoder.decode(line).replace(/\r$/, "");
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch {
      // A server that prints non-protocol text on stdout breaks only that line, not the session.
      this.onerror?.(new Error("downstream wrote a line that is not JSON-RPC"));
      return;
    }
    this.onmessage?.(message);
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
