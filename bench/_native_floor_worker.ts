/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * The worker half of the round-trip floors `bench/native_calls.ts` measures: the cheapest ways a worker
 * blocked in `Atomics.wait` can hand a request to the host and get an answer, with no work in between.
 *
 * - `sab`: the worker flips a word of a `SharedArrayBuffer` and notifies; the host, waiting with
 *   `Atomics.waitAsync`, answers through the same buffer.
 * - `post`: the worker posts a number; the host answers through the buffer.
 * - `call`: as `post`, but the message is a native call as the sandbox worker posted it before the call
 *   record moved into the shared buffer (an object holding a transferred 40-byte argument buffer).
 *
 * @module
 */

const IDLE = 0, CALL = 1, REPLY = 2;

self.onmessage = (
  e: MessageEvent<{ mode: "sab" | "post" | "call"; buffer: SharedArrayBuffer; n: number }>,
) => {
  const { mode, buffer, n } = e.data;
  const w = new Int32Array(buffer);
  for (let i = 0; i < n; i++) {
    if (mode === "sab") {
      Atomics.store(w, 0, CALL);
      Atomics.notify(w, 0);
    } else if (mode === "post") {
      Atomics.store(w, 0, CALL);
      self.postMessage(i);
    } else {
      Atomics.store(w, 0, CALL);
      const args = new Uint8Array(40);
      self.postMessage({ t: "call", id: 1, seq: i + 1, cap: 0, args }, [args.buffer]);
    }
    while (Atomics.load(w, 0) !== REPLY) Atomics.wait(w, 0, CALL, 1000);
    Atomics.store(w, 0, IDLE);
  }
  self.postMessage("done");
};
