/**
 * Where audit bytes go: standard output, or a file opened append-only with mode 0600. Both keep the
 * log made of whole lines: a write that fails part-way (a full disk, a closed pipe) never leaves a torn
 * record for the next one to be glued onto.
 *
 * @module
 */

/** A byte sink for JSONL audit lines. Writes are issued one at a time by the writer. */
export interface AuditTarget {
  /**
   * Writes all of `bytes` (whole lines), looping over partial writes. On failure rejects with an
   * {@link AuditWriteError} saying how many leading bytes of `bytes` (a whole number of lines) are
   * kept in the sink; the rest is gone.
   */
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes to stable storage, where that means something. */
  sync(): Promise<void>;
  /** Releases the target. */
  close(): Promise<void>;
}

/** A write that failed part-way: the first `kept` bytes (whole lines) are in the sink, the rest is not. */
export class AuditWriteError extends Error {
  /** Leading bytes of the failed write that stay in the sink, ending at a newline (or 0). */
  readonly kept: number;

  /** Wraps the sink's failure. */
  constructor(kept: number, cause: unknown) {
    super(`audit write failed after ${kept} whole bytes`, { cause });
    this.name = "AuditWriteError";
    this.kept = kept;
  }
}

/**
 * What {@link lineTarget} writes through: `Deno.FsFile` and `Deno.stdout` fit. `truncate` (when the sink
 * has one) cuts a torn tail off; without it, the next write starts on a fresh line instead.
 */
export interface LineSink {
  /** Writes some prefix of `p`, resolving with its length (possibly short), or rejects. */
  write(p: Uint8Array): Promise<number>;
  /** Cuts the sink to `len` bytes. */
  truncate?(len: number): Promise<void>;
  /** Flushes data to stable storage. */
  syncData?(): Promise<void>;
  /** Releases the sink. */
  close?(): void;
}

const NEWLINE = new Uint8Array([10]);

/** One past the last newline among the first `end` bytes of `bytes` (0 when there is none). */
function wholeLines(bytes: Uint8Array, end: number): number {
  const i = bytes.subarray(0, end).lastIndexOf(10);
  return i + 1;
}

/**
 * An audit target over `sink` whose current length is `size` (for a file opened to append, its size)
 * and which, with `endsTorn`, ends in an unterminated line (a log cut short before this process).
 * A failed write is cut back to its last newline (`truncate`); if that is impossible (a pipe) or fails
 * too, the torn tail stays and the next write begins with a newline, so the record after it is still a
 * line of its own.
 */
export function lineTarget(sink: LineSink, size = 0, endsTorn = false): AuditTarget {
  let length = size;
  /** The sink ends in a torn line that could not be cut off. */
  let torn = endsTorn;
  let closed = false;
  return {
    async write(bytes) {
      const prefix = torn ? 1 : 0;
      const data = prefix === 0 ? bytes : concat(NEWLINE, bytes);
      let at = 0;
      try {
        while (at < data.length) {
          const n = await sink.write(data.subarray(at));
          // A sink that takes nothing would spin here forever: that is a failed write.
          if (!(n > 0)) throw new Deno.errors.WriteZero("the audit sink accepted no bytes");
          at += n;
        }
        length += data.length;
        torn = false;
      } catch (err) {
        const keep = wholeLines(data, at);
        if (at > keep) {
          // A torn tail is in the sink: cut it off, or mark it so the next record starts a new line.
          let cut = false;
          if (sink.truncate !== undefined) {
            try {
              await sink.truncate(length + keep);
              cut = true;
            } catch {
              // Left torn.
            }
          }
          if (cut) {
            length += keep;
            if (keep > 0) torn = false;
          } else {
            length += at;
            torn = true;
          }
        } else {
          length += at;
          if (at > 0) torn = false;
        }
        throw new AuditWriteError(Math.max(0, keep - prefix), err);
      }
    },
    sync: () => (closed || sink.syncData === undefined ? Promise.resolve() : sink.syncData()),
    close: () => {
      if (!closed) {
        closed = true;
        sink.close?.();
      }
      return Promise.resolve();
    },
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Standard output (never closed: the process owns it). */
export function stdoutTarget(): AuditTarget {
  return lineTarget({ write: (p) => Deno.stdout.write(p) });
}

/**
 * Opens `path` for appending, creating it with mode 0600; an existing file is narrowed to 0600 too, so
 * the log is never readable by other users (on platforms with POSIX modes).
 */
export async function fileTarget(path: string): Promise<AuditTarget> {
  const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
  let size: number;
  let endsTorn = false;
  try {
    const info = await file.stat();
    size = info.size;
    if (Deno.build.os !== "windows") {
      if (info.mode !== null && (info.mode & 0o777) !== 0o600) await Deno.chmod(path, 0o600);
    }
    if (size > 0) endsTorn = (await lastByte(path, size)) !== 10;
  } catch (err) {
    file.close();
    throw err;
  }
  return lineTarget(file, size, endsTorn);
}

/** The last byte of a file of `size` bytes (a log another run left without its final newline?). */
async function lastByte(path: string, size: number): Promise<number | undefined> {
  using f = await Deno.open(path, { read: true });
  await f.seek(size - 1, Deno.SeekMode.Start);
  const one = new Uint8Array(1);
  return (await f.read(one)) === 1 ? one[0] : undefined;
}
