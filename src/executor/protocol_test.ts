import assert from "node:assert/strict";
import { ERROR_CODES } from "../errors.ts";
import {
  errorCodeIndex,
  HEADER_BYTES,
  I_CALL,
  I_CALL_CAP,
  I_CALL_LENGTH,
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

Deno.test("protocol: a call record round-trips through the buffer at every size up to the data area", () => {
  const ch = SharedChannel.create(64);
  const room = ch.data.length;
  assert.equal(ch.takeCall(0), undefined, "no call before the worker writes one");
  let seed = 7;
  const byte = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff;
  for (let len = 0, seq = 1; len <= room; len++, seq++) {
    const args = Uint8Array.from({ length: len }, byte);
    const cap = len % 5;
    ch.reset();
    assert.ok(ch.beginCall());
    assert.equal(ch.postCall(seq, cap, args), true, `${len} bytes fit`);
    assert.equal(Atomics.load(ch.words, I_CALL), seq);
    const record = ch.takeCall(0);
    assert.deepEqual(record, { seq, cap, args }, `${len} bytes`);
    assert.equal(ch.takeCall(seq), undefined, "the same record is not taken twice");
    // The host's copy is its own: a worker rewriting the data area afterwards changes nothing.
    ch.data.fill(0xee);
    assert.deepEqual(record!.args, args);
  }
});

Deno.test("protocol: arguments larger than the data area are not written to the buffer", () => {
  const ch = SharedChannel.create(64);
  const room = ch.data.length;
  for (const extra of [1, 2, 64, 1000]) {
    ch.reset();
    ch.data.fill(0x11);
    assert.ok(ch.beginCall());
    assert.equal(ch.postCall(1, 0, new Uint8Array(room + extra)), false, `${room + extra} bytes`);
    assert.equal(Atomics.load(ch.words, I_CALL), 0, "nothing published");
    assert.ok(ch.data.every((b) => b === 0x11), "the data area is untouched");
    assert.equal(ch.takeCall(0), undefined);
  }
});

Deno.test("protocol: a call record whose length lies outside the data area is refused", () => {
  const ch = SharedChannel.create(64);
  const room = ch.data.length;
  for (const length of [-1, -(2 ** 31), room + 1, room * 2, 2 ** 31 - 1]) {
    ch.reset();
    ch.words[I_CALL_LENGTH] = length;
    ch.words[I_CALL_CAP] = 0;
    Atomics.store(ch.words, I_CALL, 1);
    assert.throws(() => ch.takeCall(0), /protocol: call record of -?\d+ bytes/, String(length));
  }
});

Deno.test("protocol: the host's wait for a call wakes on a call record and on a release", async () => {
  const ch = SharedChannel.create(64);
  // A pending Atomics.waitAsync does not keep Deno's event loop alive (the pool's deadline timer does).
  const alive = setInterval(() => {}, 1_000);
  try {
    const woke = () =>
      new Promise<number>((resolve) => ch.awaitCall(0, () => resolve(Atomics.load(ch.words, I_CALL))));
    const first = woke();
    ch.releaseCallWait();
    assert.equal(await first, 0, "a release wakes the wait without a call");
    const second = woke();
    assert.ok(ch.beginCall());
    ch.postCall(1, 2, new Uint8Array([9]));
    assert.equal(await second, 1);
    // A record already there when the host starts waiting: it wakes at once.
    assert.equal(await woke(), 1);
    const third = new Promise<void>((resolve) => ch.awaitCall(1, resolve));
    ch.interrupt(INTERRUPT_CANCELLED);
    await third; // an interrupt ends the wait too
  } finally {
    clearInterval(alive);
  }
});
