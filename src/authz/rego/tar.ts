/**
 * A small reader for gzip-compressed tar archives (OPA bundles), in memory and with a size cap.
 *
 * Handles POSIX ustar, GNU (`L` long names, base-256 sizes) and pax (`x` headers with `path`/`size`)
 * entries. Only regular files are returned; directories, links and devices are skipped.
 *
 * @module
 */
import { RegoLoadError } from "./errors.ts";

/** One regular file of an archive. */
export interface TarFile {
  /** Path without leading `/` or `./`. */
  readonly name: string;
  /** File contents. */
  readonly data: Uint8Array;
}

const BLOCK = 512;

function bad(message: string): never {
  throw new RegoLoadError("bundle", `rego: invalid bundle: ${message}`);
}

/** Gunzips `bytes`, failing once the output would exceed `maxBytes`. */
export async function gunzip(bytes: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new RegoLoadError(
          "bundle",
          `rego: bundle is larger than ${maxBytes} bytes when decompressed (maxBundleBytes)`,
        );
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof RegoLoadError) throw err;
    throw new RegoLoadError("bundle", "rego: invalid bundle: not a valid gzip stream", { cause: err });
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8", { fatal: true });

function cString(block: Uint8Array, start: number, length: number): Uint8Array {
  let end = start;
  while (end < start + length && block[end] !== 0) end++;
  return block.subarray(start, end);
}

function text(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    bad("a file name is not valid UTF-8");
  }
}

/** A numeric header field: octal text, or GNU base-256 when the high bit of the first byte is set. */
function numeric(block: Uint8Array, start: number, length: number): number {
  if (block[start] & 0x80) {
    let n = block[start] & 0x3f;
    for (let i = start + 1; i < start + length; i++) n = n * 256 + block[i];
    if (!Number.isSafeInteger(n)) bad("a size field is too large");
    return n;
  }
  const s = latin1.decode(cString(block, start, length)).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) bad(`malformed numeric header field ${JSON.stringify(s)}`);
  return parseInt(s, 8);
}

function checksumOk(block: Uint8Array): boolean {
  const stored = numeric(block, 148, 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum === stored;
}

/** pax records: `"<len> <key>=<value>\n"` repeated. */
function paxRecords(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    let sp = at;
    while (sp < data.length && data[sp] !== 0x20) sp++;
    const len = Number(latin1.decode(data.subarray(at, sp)));
    if (!Number.isSafeInteger(len) || len <= sp - at || at + len > data.length) bad("malformed pax header");
    const record = text(data.subarray(sp + 1, at + len - 1));
    const eq = record.indexOf("=");
    if (eq < 0) bad("malformed pax record");
    out.set(record.slice(0, eq), record.slice(eq + 1));
    at += len;
  }
  return out;
}

function normalizeName(raw: string): string {
  const parts: string[] = [];
  for (const part of raw.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") bad(`file name ${JSON.stringify(raw)} escapes the bundle root`);
    parts.push(part);
  }
  return parts.join("/");
}

/** Reads every regular file of an uncompressed tar archive. Duplicate names are an error. */
export function readTar(archive: Uint8Array): TarFile[] {
  const files: TarFile[] = [];
  const seen = new Set<string>();
  let at = 0;
  let longName: string | undefined;
  let pax: Map<string, string> | undefined;
  while (true) {
    if (at + BLOCK > archive.length) {
      // Some writers omit the two zero blocks that end an archive; a clean end is still a clean end.
      if (at === archive.length) break;
      bad("truncated archive");
    }
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) bad(`header checksum mismatch at offset ${at}`);
    const type = String.fromCharCode(header[156] || 0x30);
    let size = numeric(header, 124, 12);
    if (pax?.has("size")) {
      const paxSize = Number(pax.get("size"));
      if (!Number.isSafeInteger(paxSize) || paxSize < 0) bad("malformed pax size");
      size = paxSize;
    }
    const dataStart = at + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > archive.length) bad("truncated file data");
    const data = archive.subarray(dataStart, dataEnd);
    at = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (type === "L") {
      longName = text(cString(data, 0, data.length));
      continue;
    }
    if (type === "g" || type === "K") continue;

    let name = longName ?? text(cString(header, 0, 100));
    const magic = latin1.decode(header.subarray(257, 262));
    if (longName === undefined && magic === "ustar" && header[345] !== 0) {
      name = `${text(cString(header, 345, 155))}/${name}`;
    }
    if (pax?.has("path")) name = pax.get("path")!;
    longName = undefined;
    pax = undefined;

    if (type !== "0" && type !== "7") continue;
    const normalized = normalizeName(name);
    if (normalized === "") bad("a file has an empty name");
    if (seen.has(normalized)) bad(`duplicate file ${JSON.stringify(normalized)}`);
    seen.add(normalized);
    files.push({ name: normalized, data: data.slice() });
  }
  return files;
}
