import assert from "node:assert/strict";
import { ERROR_CODES } from "../errors.ts";
import {
  errorCodeIndex,
  HEADER_BYTES,
  I_STATE,
  INTERRUPT_CANCELLED,
  safeDetail,
  SharedChannel,
  STATE_IDLE,
  STATE_INTERRUPTED,
  STATE_WAITING,
} from "./protocol.ts";
import { slack, timed } from "../../tests/timing.ts";

const FIXTURE = new URL("../../tests/executor/fixtures/channel_worker.ts", import.meta.url);

/** A worker running the worker half of the protocol, with a message queue for the test. */
class Peer {
  readonly worker: Worker;
  readonly channel: SharedChannel;
  readonly #queue: unknown[] = [];
  #wake: (() => void) | undefined;

  constructor(dataBytes: number) {
    this.channel = SharedChannel.create(dataBytes);
    this.worker = new Worker(FIXTURE, { type: "module", deno: { permissions: "none" } });
    this.worker.onmessage = (e) => {
      this.#queue.push(e.data);
      this.#wake?.();
    };
    this.worker.postMessage({ t: "init", buffer: this.channel.buffer });
  }

  async next(): Promise<Record<string, unknown>> {
    while (this.#queue.length === 0) await new Promise<void>((r) => (this.#wake = r));
    return this.#queue.shift() as Record<string, unknown>;
  }

  call(seq: number, maxBytes = 1 << 20, timeout = 5_000): void {
    this.worker.postMessage({ t: "call", seq, maxBytes, timeout });
  }

  close(): void {
    this.channel.interrupt(3);
    this.worker.terminate();
  }
}

Deno.test("protocol: channel state machine", () => {
  const ch = SharedChannel.create(64);
  assert.equal(ch.buffer.byteLength, HEADER_BYTES + 64);
  assert.equal(ch.writeResult(1, new Uint8Array([1]), 0), -1, "no reply unless the worker waits");
  assert.equal(ch.writeError(1, "internal"), false);
  assert.ok(ch.beginCall());
  assert.equal(Atomics.load(ch.words, I_STATE), STATE_WAITING);
  assert.equal(ch.beginCall(), false, "one call at a time");
  ch.interrupt(INTERRUPT_CANCELLED);
  assert.equal(Atomics.load(ch.words, I_STATE), STATE_INTERRUPTED);
  assert.equal(ch.writeResult(1, new Uint8Array([1]), 0), -1, "an interrupt is never overwritten by a reply");
  assert.equal(ch.beginCall(), false, "nor by the next call");
  assert.equal(ch.interruptReason(), INTERRUPT_CANCELLED);
  ch.reset();
  assert.equal(Atomics.load(ch.words, I_STATE), STATE_IDLE);
  assert.equal(ch.interruptReason(), 0);
  assert.throws(() => new SharedChannel(new SharedArrayBuffer(HEADER_BYTES)), RangeError);
  for (const code of ERROR_CODES) assert.equal(ERROR_CODES[errorCodeIndex(code)], code);
});

Deno.test("protocol: safeDetail escapes control characters and cuts long text", () => {
  assert.equal(safeDetail("a\u0000b\u001bc\nd"), "a\\x00b\\x1bc\nd");
  assert.equal(safeDetail("x".repeat(5000)).length, 2048);
});

Deno.test("protocol: round trip, chunks, errors and interrupts across threads", async () => {
  const peer = new Peer(16); // a tiny data area forces chunking
  try {
    assert.deepEqual(await peer.next(), { t: "ready" });

    // A small result in one piece.
    peer.call(1);
    assert.deepEqual(await peer.next(), { t: "call", seq: 1 });
    assert.equal(peer.channel.writeResult(1, new Uint8Array([7, 8, 9]), 0), 3);
    const r1 = await peer.next();
    assert.deepEqual(r1.reply, { kind: "ok", bytes: new Uint8Array([7, 8, 9]) });

    // A 1000-byte result in 16-byte chunks, each pulled by the worker.
    const big = new Uint8Array(1000).map((_, i) => i % 251);
    peer.call(2);
    await peer.next();
    let next = peer.channel.writeResult(2, big, 0);
    let chunks = 1;
    for (;;) {
      const m = await peer.next();
      if (m.t === "result") {
        assert.deepEqual(m.reply, { kind: "ok", bytes: big });
        break;
      }
      assert.deepEqual(m, { t: "more", seq: 2, offset: next });
      next = peer.channel.writeResult(2, big, next);
      chunks++;
    }
    assert.equal(chunks, Math.ceil(1000 / 16));

    // A classified failure.
    peer.call(3);
    await peer.next();
    assert.ok(peer.channel.writeError(3, "permission_denied"));
    assert.deepEqual((await peer.next()).reply, { kind: "error", code: "permission_denied" });

    // A result larger than the worker accepts is a protocol violation.
    peer.call(4, 10);
    await peer.next();
    peer.channel.writeResult(4, big, 0);
    assert.match(String((await peer.next()).error), /bad reply chunk/);
    peer.channel.reset();

    // A reply to another call is a protocol violation.
    peer.call(5);
    await peer.next();
    peer.channel.writeResult(99, new Uint8Array([1]), 0);
    assert.match(String((await peer.next()).error), /reply to call 99/);
    peer.channel.reset();

    // The worker's own deadline ends a wait the host never answers.
    peer.call(6, 1 << 20, 30);
    await peer.next();
    assert.deepEqual((await peer.next()).reply, { kind: "interrupted", reason: "deadline" });
    peer.channel.reset();

    // An interrupt wakes a blocked worker at once, and stays until the host resets the buffer.
    peer.call(7);
    await peer.next();
    const { value: woken, ms, factor } = await timed(() => {
      peer.channel.interrupt(INTERRUPT_CANCELLED);
      return peer.next();
    });
    assert.deepEqual(woken.reply, { kind: "interrupted", reason: "cancelled" });
    assert.ok(ms < slack(500, factor), `woke after ${ms.toFixed(0)} ms`);
    peer.call(8);
    assert.deepEqual(await peer.next(), { t: "result", refused: true });
  } finally {
    peer.close();
  }
});
