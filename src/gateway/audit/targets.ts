/**
 * Where audit bytes go: standard output, or a file opened append-only with mode 0600.
 *
 * @module
 */

/** A byte sink for JSONL audit lines. Writes are issued one at a time by the writer. */
export interface AuditTarget {
  /** Writes all of `bytes` (looping over partial writes). */
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes to stable storage, where that means something. */
  sync(): Promise<void>;
  /** Releases the target. */
  close(): Promise<void>;
}

async function writeAll(w: { write(p: Uint8Array): Promise<number> }, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await w.write(bytes.subarray(at));
}

/** Standard output (never closed: the process owns it). */
export function stdoutTarget(): AuditTarget {
  return {
    write: (bytes) => writeAll(Deno.stdout, bytes),
    sync: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/**
 * Opens `path` for appending, creating it with mode 0600; an existing file is narrowed to 0600 too, so
 * the log is never readable by other users (on platforms with POSIX modes).
 */
export async function fileTarget(path: string): Promise<AuditTarget> {
  const file = await Deno.open(path, { append: true, create: true, mode: 0o600 });
  try {
    if (Deno.build.os !== "windows") {
      const info = await file.stat();
      if (info.mode !== null && (info.mode & 0o777) !== 0o600) await Deno.chmod(path, 0o600);
    }
  } catch (err) {
    file.close();
    throw err;
  }
  let closed = false;
  return {
    write: (bytes) => writeAll(file, bytes),
    sync: () => (closed ? Promise.resolve() : file.syncData()),
    close: () => {
      if (!closed) {
        closed = true;
        file.close();
      }
      return Promise.resolve();
    },
  };
}
