/**
 * The child half of the pipe floor `bench/native_calls.ts` measures: reads 8-byte requests from stdin
 * with a blocking read and echoes each one back on stdout with one blocking write, like a sandbox
 * process waiting for a native call's reply. Ends at end of input.
 *
 * @module
 */
const buf = new Uint8Array(8);
for (;;) {
  let got = 0;
  while (got < 8) {
    const n = Deno.stdin.readSync(buf.subarray(got));
    if (n === null || n === 0) Deno.exit(0);
    got += n;
  }
  let off = 0;
  while (off < 8) off += Deno.stdout.writeSync(buf.subarray(off));
}
