/**
 * The printed-output tail against a plain model (keep every byte, cut the last 8 KiB at the end), over
 * generated sequences of prints: ASCII and multi-byte text, small and oversized messages.
 */
import assert from "node:assert/strict";
import { boundOutput, droppedLine, MAX_OUTPUT_BYTES, PrintTail } from "./print_output.ts";

const encoder = new TextEncoder();

/** A JS string as the engine hands it to the print hook: one char per UTF-8 byte. */
function binary(text: string): string {
  return String.fromCharCode(...encoder.encode(text));
}

/** What the tail should say after `prints` (JS strings). */
function model(prints: string[]): string | undefined {
  const bytes = encoder.encode(prints.join(""));
  if (bytes.length === 0) return undefined;
  if (bytes.length <= MAX_OUTPUT_BYTES) return new TextDecoder().decode(bytes);
  let start = bytes.length - MAX_OUTPUT_BYTES;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return droppedLine(start) + new TextDecoder().decode(bytes.subarray(start));
}

Deno.test("PrintTail keeps the last 8 KiB and counts what it dropped (generated)", () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const pieces = ["a", "é", "€", "𝄞", "line\n", "\t"];
  for (let run = 0; run < 200; run++) {
    const tail = new PrintTail();
    const prints: string[] = [];
    const count = rand(60);
    for (let i = 0; i < count; i++) {
      const size = rand(4) === 0 ? rand(12_000) : rand(300);
      let text = "";
      while (text.length < size) text += pieces[rand(pieces.length)];
      prints.push(text + "\n");
      tail.add(binary(text + "\n"));
    }
    assert.equal(tail.text(), model(prints), `run ${run}`);
  }
});

Deno.test("boundOutput refuses non-strings and cuts an unbounded one from a sandbox", () => {
  assert.equal(boundOutput(undefined), undefined);
  assert.equal(boundOutput(42), undefined);
  assert.equal(boundOutput(""), undefined);
  assert.equal(boundOutput("hi\n"), "hi\n");
  const huge = "x".repeat(1_000_000);
  const cut = boundOutput(huge)!;
  assert.ok(cut.length < MAX_OUTPUT_BYTES + 100);
  assert.ok(cut.startsWith("[output cut]\n"));
});
