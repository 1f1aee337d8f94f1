/**
 * Redaction of a 1 MiB tool result holding 50 injected secrets and 5 anchored patterns (target: at least
 * 200 MB/s). `deno bench -A bench/gateway_redact_bench.ts` for the bench table;
 * `deno run -A bench/gateway_redact_bench.ts [--check]` prints MB/s (and fails below the target with
 * `--check`). Sizes are UTF-8 bytes of the result's JSON encoding.
 */
import { jsonByteLength, Redactor } from "../src/gateway/redact/mod.ts";
import type { JsonObject } from "../src/gateway/domain/mod.ts";

const TARGET_MB_S = 200;

function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

const WORDS =
  ("the quick brown fox jumps over lazy dog lorem ipsum dolor sit amet consectetur adipiscing elit " +
    "sed do eiusmod tempor incididunt ut labore et dolore magna aliqua entity relation observation graph node")
    .split(" ");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function token(r: (n: number) => number, prefix: string, len: number, alphabet = ALNUM): string {
  let s = prefix;
  for (let i = 0; i < len; i++) s += alphabet[r(alphabet.length)];
  return s;
}

/** The 50 secrets, the 5 patterns, and a ~1 MiB result with every secret and ~40 pattern matches in it. */
export function fixture(escaped = false): { redactor: Redactor; payload: JsonObject; bytes: number } {
  const r = rng(42);
  const secrets = Array.from({ length: 50 }, (_, i) => token(r, `svc${i}-`, 24 + r(16)));
  const patterns = [
    { name: "aws_access_key", regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" },
    { name: "github_token", regex: "ghp_[A-Za-z0-9]{36}", anchor: "ghp_" },
    { name: "slack_token", regex: "xox[bp]-[0-9A-Za-z-]{10,48}", anchor: "xox" },
    { name: "stripe_key", regex: "sk_live_[0-9a-zA-Z]{24}", anchor: "sk_live_" },
    { name: "bearer", regex: "Bearer [A-Za-z0-9._~+/-]{20,}", anchor: "Bearer " },
  ];
  const inserts = [
    ...secrets,
    ...Array.from({ length: 8 }, () => token(r, "AKIA", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")),
    ...Array.from({ length: 8 }, () => token(r, "ghp_", 36)),
    ...Array.from({ length: 8 }, () => token(r, "xoxb-", 30)),
    ...Array.from({ length: 8 }, () => token(r, "sk_live_", 24)),
    ...Array.from({ length: 8 }, () => token(r, "Bearer ", 40)),
  ];
  const parts: string[] = [];
  let size = 0;
  const target = 1024 * 1024 - 200;
  const every = Math.floor(target / (inserts.length + 1));
  let next = every;
  let k = 0;
  while (size < target) {
    const w = WORDS[r(WORDS.length)];
    parts.push(w);
    size += w.length + 1;
    if (size >= next && k < inserts.length) {
      parts.push(escaped ? JSON.stringify({ v: inserts[k++] }).replace(/"/g, '\\"') : inserts[k++]);
      size += parts[parts.length - 1].length + 1;
      next += every;
    }
  }
  const payload: JsonObject = { content: [{ type: "text", text: parts.join(" ") }], isError: false };
  return { redactor: new Redactor({ secrets, patterns }), payload, bytes: jsonByteLength(payload) };
}

const plain = fixture();
const withEscapes = fixture(true);

Deno.bench({ name: "redact 1 MiB result, 50 secrets, 5 anchored patterns", baseline: true }, () => {
  plain.redactor.redactValue(plain.payload);
});
Deno.bench({ name: "redact 1 MiB result with JSON escapes in the text (second decoded pass)" }, () => {
  withEscapes.redactor.redactValue(withEscapes.payload);
});
Deno.bench({ name: "size check of a 1 MiB result (jsonByteLength)" }, () => {
  jsonByteLength(plain.payload);
});

/** Median throughput over `rounds` timed iterations (the median resists GC pauses and a loaded machine). */
function mbPerSecond(f: ReturnType<typeof fixture>, rounds: number): { mbs: number; count: number } {
  let count = 0;
  for (let i = 0; i < 30; i++) count = f.redactor.redactValue(f.payload).count; // warm up (JIT)
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    f.redactor.redactValue(f.payload);
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  const ms = times[Math.floor(times.length / 2)];
  return { mbs: f.bytes / 1e6 / (ms / 1000), count };
}

if (import.meta.main) {
  const a = mbPerSecond(plain, 200);
  const b = mbPerSecond(withEscapes, 100);
  const sizeT0 = performance.now();
  for (let i = 0; i < 50; i++) jsonByteLength(plain.payload);
  const sizeMbs = plain.bytes / 1e6 / ((performance.now() - sizeT0) / 50 / 1000);
  console.log(`result: ${plain.bytes} bytes; replacements: ${a.count} (expected 90)`);
  console.log(`redact plain text:        ${a.mbs.toFixed(0)} MB/s (target >= ${TARGET_MB_S})`);
  console.log(`redact text with escapes: ${b.mbs.toFixed(0)} MB/s (replacements ${b.count})`);
  console.log(`size check:               ${sizeMbs.toFixed(0)} MB/s`);
  if (Deno.args.includes("--check") && (a.mbs < TARGET_MB_S || a.count !== 90)) Deno.exit(1);
}
