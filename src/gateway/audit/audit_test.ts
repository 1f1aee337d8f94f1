import assert from "node:assert/strict";
import { type AuditRecord, authFailureRecord, isGatewayError, isSecurityRecord } from "../domain/mod.ts";
import { type AuditTarget, AuditWriter, fileTarget, type LineSink, lineTarget } from "./mod.ts";

function record(i: number, security = false): AuditRecord {
  return {
    timestamp: new Date(1_700_000_000_000 + i).toISOString(),
    client_id: "alice",
    tool_name: "memory__read_graph",
    decision: security ? "denied_default" : "allowed",
    allowed: !security,
    latency_ms: 1.25,
    breaker_state: "closed",
    redactions: 0,
    truncated: false,
    error: security ? "unknown tool" : "",
  };
}

/** A target whose writes wait until released, recording every line. */
class GatedTarget implements AuditTarget {
  lines: string[] = [];
  syncs = 0;
  fail = false;
  #gate: Promise<void> = Promise.resolve();
  #open: () => void = () => {};
  hold(): void {
    this.#gate = new Promise((r) => (this.#open = r));
  }
  release(): void {
    this.#open();
    this.#gate = Promise.resolve();
  }
  async write(bytes: Uint8Array): Promise<void> {
    await this.#gate;
    if (this.fail) throw new Error("disk full at /var/secret/path");
    this.lines.push(...new TextDecoder().decode(bytes).split("\n").filter((l) => l !== ""));
  }
  sync(): Promise<void> {
    this.syncs++;
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const OPTIONS = { buffer: 8, highWater: 4, fsyncMs: 0, securityBlockMs: 2000 };

Deno.test("audit: a 0600 append-only JSONL file with the snake_case fields, drained on close", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    await Deno.writeTextFile(path, '{"previous":"line"}\n', { mode: 0o644 });
    await Deno.chmod(path, 0o644);
    const writer = new AuditWriter(await fileTarget(path), { ...OPTIONS, buffer: 1000, highWater: 1000 });
    for (let i = 0; i < 100; i++) void writer.submit(record(i));
    await writer.submit(record(100, true));
    await writer.close();
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
    assert.equal(lines.length, 102);
    assert.equal(lines[0], '{"previous":"line"}', "appended, not truncated");
    const first = JSON.parse(lines[1]);
    assert.deepEqual(Object.keys(first), [
      "timestamp",
      "client_id",
      "tool_name",
      "decision",
      "allowed",
      "latency_ms",
      "breaker_state",
      "redactions",
      "truncated",
      "error",
    ]);
    assert.equal(JSON.parse(lines[101]).decision, "denied_default");
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.deepEqual(writer.stats, { written: 101, shed: 0, unwritable: 0, queued: 0 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: above the high-water mark success records are shed and counted, security records never", async () => {
  const target = new GatedTarget();
  const events: string[] = [];
  const writer = new AuditWriter(target, { ...OPTIONS, onEvent: (e, n) => events.push(`${e}:${n}`) });
  target.hold();
  void writer.submit(record(0)); // taken by the first batch, blocked in write
  while (writer.stats.queued > 0) await new Promise((r) => setTimeout(r, 1));
  for (let i = 1; i <= 10; i++) void writer.submit(record(i));
  assert.equal(writer.stats.shed, 6, "4 queued up to the high-water mark, 6 shed");
  const security = [11, 12, 13].map((i) => writer.submit(record(i, true)));
  assert.equal(writer.stats.shed, 6, "security records are not shed");
  target.release();
  await Promise.all(security);
  await writer.close();
  assert.equal(target.lines.length, 1 + 4 + 3);
  assert.equal(target.lines.filter((l) => JSON.parse(l).allowed === false).length, 3);
  assert.deepEqual(events, Array(6).fill("shed:1"));
});

Deno.test("audit: a security record that cannot be written in time fails the call closed", async () => {
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, securityBlockMs: 50 });
  target.hold();
  const started = performance.now();
  await writer.submit(record(0)); // a success record never waits
  await assert.rejects(writer.submit(record(1, true)), (e) => isGatewayError(e, "audit_unavailable"));
  assert.ok(performance.now() - started >= 45);
  target.release();
  await writer.close();
  // The refused call's record is still written once the sink recovers: the log stays complete.
  assert.equal(target.lines.length, 2);
});

Deno.test("audit: a full buffer makes security records wait for room, within the block time", async () => {
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, buffer: 2, highWater: 2, securityBlockMs: 5000 });
  target.hold();
  const first = writer.submit(record(0, true));
  await new Promise((r) => setTimeout(r, 0)); // the first batch is now blocked in write
  const queued = [1, 2].map((i) => writer.submit(record(i, true)));
  const waiting = writer.submit(record(3, true)); // the buffer is full: it waits for room
  assert.equal(writer.stats.queued, 2);
  setTimeout(() => target.release(), 20);
  await Promise.all([first, ...queued, waiting]);
  await writer.close();
  assert.deepEqual(
    target.lines.map((l) => JSON.parse(l).timestamp),
    [0, 1, 2, 3].map((i) => record(i).timestamp),
  );
});

Deno.test("audit: write failures are counted and reject security records; nothing internal leaks", async () => {
  const target = new GatedTarget();
  target.fail = true;
  const errors: unknown[] = [];
  const writer = new AuditWriter(target, { ...OPTIONS, onError: (e) => errors.push(e) });
  await writer.submit(record(0));
  await assert.rejects(writer.submit(record(1, true)), (e) => {
    assert.ok(isGatewayError(e, "audit_unavailable"));
    assert.ok(!e.publicText.includes("/var/secret"));
    return true;
  });
  await writer.close();
  assert.equal(writer.stats.unwritable, 2);
  assert.ok(errors.length >= 1);
  // After close, a security record is refused at once and a success record is counted as unwritable.
  await assert.rejects(writer.submit(record(2, true)), (e) => isGatewayError(e, "audit_unavailable"));
  await writer.submit(record(3));
  assert.equal(writer.stats.unwritable, 4);
});

Deno.test("audit: fsync runs periodically while there were writes", async () => {
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, fsyncMs: 10 });
  await writer.submit(record(0, true));
  const deadline = Date.now() + 5000;
  while (target.syncs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.ok(target.syncs >= 1);
  const syncs = target.syncs;
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(target.syncs, syncs, "no fsync without new writes");
  await writer.close();
});

Deno.test("audit: records submitted right after a security record resolves are written too", async () => {
  // The writer's loop must not look busy in the turn it ends, or these would wait forever.
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, securityBlockMs: 3000 });
  for (let i = 0; i < 20; i += 2) {
    void writer.submit(record(i));
    await writer.submit(record(i + 1, true));
  }
  await writer.close();
  assert.equal(target.lines.length, 20);
});

Deno.test("audit: close gives up on a stuck sink after its timeout, failing what was left closed", async () => {
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, buffer: 2, highWater: 2, securityBlockMs: 10_000 });
  target.hold();
  const inWrite = writer.submit(record(0, true));
  await new Promise((r) => setTimeout(r, 0));
  const queued = writer.submit(record(1, true));
  const started = performance.now();
  await writer.close(50);
  assert.ok(performance.now() - started < 5000);
  await assert.rejects(queued, (e) => isGatewayError(e, "audit_unavailable"));
  assert.ok(writer.stats.unwritable >= 1);
  target.release(); // the write in flight may still finish; its call was answered either way
  await inWrite.catch(() => {});
});

Deno.test("audit: waiting security records are bounded by the buffer size", async () => {
  const target = new GatedTarget();
  const writer = new AuditWriter(target, { ...OPTIONS, buffer: 1, highWater: 1, securityBlockMs: 10_000 });
  target.hold();
  const first = writer.submit(record(0, true));
  await new Promise((r) => setTimeout(r, 0));
  const queued = writer.submit(record(1, true)); // fills the buffer
  const waiting = writer.submit(record(2, true)); // waits for room
  await assert.rejects(writer.submit(record(3, true)), (e) => isGatewayError(e, "audit_unavailable"));
  assert.equal(writer.stats.unwritable, 1);
  target.release();
  await Promise.all([first, queued, waiting]);
  await writer.close();
  assert.equal(target.lines.length, 3);
});

/**
 * A file-like sink over a real file that runs out of room: each write stores at most `chunk` bytes
 * (short writes), and once `room` bytes are used it throws like a full disk. `truncate` gives room back,
 * as freeing blocks does.
 */
class FullDisk implements LineSink {
  used: number;
  room: number;
  readonly #file: Deno.FsFile;
  readonly #chunk: number;
  readonly #canTruncate: boolean;
  truncate?: (len: number) => Promise<void>;
  constructor(file: Deno.FsFile, used: number, room: number, chunk: number, canTruncate = true) {
    this.#file = file;
    this.used = used;
    this.room = room;
    this.#chunk = chunk;
    this.#canTruncate = canTruncate;
    if (canTruncate) {
      this.truncate = async (len: number) => {
        await this.#file.truncate(len);
        this.used = len;
      };
    }
  }
  async write(p: Uint8Array): Promise<number> {
    const free = this.room - this.used;
    if (free <= 0) throw new Deno.errors.WriteZero("No space left on device (os error 28)");
    const n = await this.#file.write(p.subarray(0, Math.min(p.length, this.#chunk, free)));
    this.used += n;
    return n;
  }
  syncData(): Promise<void> {
    return this.#file.syncData();
  }
  close(): void {
    this.#file.close();
  }
}

Deno.test("audit: a write that fails part-way leaves only whole JSON lines, over generated failure points", async () => {
  const dir = await Deno.makeTempDir();
  try {
    let cases = 0;
    for (const chunk of [1, 7, 64, 100_000]) {
      for (let room = 40; room < 1200; room += 97) {
        const path = `${dir}/audit-${chunk}-${room}.jsonl`;
        await Deno.writeTextFile(path, '{"previous":"line"}\n');
        const used = (await Deno.stat(path)).size;
        const file = await Deno.open(path, { append: true });
        const disk = new FullDisk(file, used, used + room, chunk);
        const writer = new AuditWriter(lineTarget(disk, used), { ...OPTIONS, buffer: 64, highWater: 64 });
        // A burst that does not fit: some records make it whole, the write fails inside another.
        const burst = Array.from(
          { length: 12 },
          (_, i) => writer.submit(record(i, true)).then(() => i, () => -1),
        );
        const outcomes = await Promise.all(burst);
        // The disk gets room again; later records must each be a line of their own.
        disk.room = Infinity;
        for (let i = 100; i < 103; i++) await writer.submit(record(i, true));
        await writer.close();
        const text = await Deno.readTextFile(path);
        assert.ok(text.endsWith("\n"), `chunk ${chunk} room ${room}: the file ends with a whole line`);
        const lines = text.slice(0, -1).split("\n").map((l) => JSON.parse(l));
        assert.equal(lines[0].previous, "line");
        const stamps = lines.slice(1).map((l) => l.timestamp);
        // Exactly the records whose calls were answered as written are in the file, in order.
        const answered = outcomes.filter((i) => i >= 0);
        assert.deepEqual(stamps, [...answered, 100, 101, 102].map((i) => record(i).timestamp));
        assert.ok(answered.length < 12, `chunk ${chunk} room ${room}: the burst did not fit`);
        assert.equal(writer.stats.written, answered.length + 3);
        assert.equal(writer.stats.unwritable, 12 - answered.length);
        cases++;
      }
    }
    assert.ok(cases > 40);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: a sink that cannot be cut back starts the next record on a line of its own", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const room of [30, 150, 333]) {
      const path = `${dir}/audit-${room}.jsonl`;
      const file = await Deno.open(path, { append: true, create: true });
      const disk = new FullDisk(file, 0, room, 16, false);
      const writer = new AuditWriter(lineTarget(disk, 0), { ...OPTIONS, buffer: 64, highWater: 64 });
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => writer.submit(record(i, true)).then(() => i, () => -1)),
      );
      disk.room = Infinity;
      await writer.submit(record(100, true));
      await writer.submit(record(101));
      await writer.close();
      const lines = (await Deno.readTextFile(path)).split("\n");
      assert.equal(lines.pop(), "", "ends with a newline");
      const whole = lines.filter((l) => {
        try {
          return typeof JSON.parse(l).timestamp === "string";
        } catch {
          return false;
        }
      });
      // One torn fragment stays (a pipe cannot be cut), alone on its line; every record is whole.
      assert.equal(lines.length - whole.length, 1, `room ${room}`);
      assert.deepEqual(
        whole.map((l) => JSON.parse(l).timestamp),
        [...outcomes.filter((i) => i >= 0), 100, 101].map((i) => record(i).timestamp),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: a log left without its final newline gets its next record on a new line", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    await Deno.writeTextFile(path, '{"whole":1}\n{"torn":');
    const writer = new AuditWriter(await fileTarget(path), OPTIONS);
    await writer.submit(record(1, true));
    await writer.close();
    const lines = (await Deno.readTextFile(path)).split("\n");
    assert.deepEqual(lines.slice(0, 2), ['{"whole":1}', '{"torn":']);
    assert.equal(JSON.parse(lines[2]).timestamp, record(1).timestamp);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: the security block timer fails a stuck call closed near its configured time, not later", async () => {
  // A lower bound alone would let a timer many times too long pass: bound it from above too (with a
  // margin for a loaded machine).
  for (const blockMs of [60, 150]) {
    const target = new GatedTarget();
    const writer = new AuditWriter(target, { ...OPTIONS, securityBlockMs: blockMs });
    target.hold();
    const started = performance.now();
    await assert.rejects(writer.submit(record(1, true)), (e) => isGatewayError(e, "audit_unavailable"));
    const waited = performance.now() - started;
    assert.ok(waited >= blockMs - 5, `waited ${waited} ms for ${blockMs}`);
    assert.ok(waited < blockMs * 8 + 400, `waited ${waited} ms for a ${blockMs} ms block`);
    target.release();
    await writer.close();
  }
});

Deno.test("audit: every kind of security record is never shed and holds its call until written", async () => {
  const kinds: [string, AuditRecord][] = [
    ["unauthenticated", authFailureRecord(new Date(0), 1)],
    ["rate_limited", authFailureRecord(new Date(0), 1, "rate limited", "rate_limited", "127.0.0.1")],
    ["denied", record(7, true)],
    ["redacted", { ...record(8), redactions: 2 }],
    ["not_found", { ...record(9, true), decision: "not_found" }],
  ];
  for (const [kind, rec] of kinds) {
    assert.ok(isSecurityRecord(rec), kind);
    const target = new GatedTarget();
    // highWater 0: every success record is shed; a security record must still be queued and written.
    const writer = new AuditWriter(target, { ...OPTIONS, highWater: 0, securityBlockMs: 5000 });
    target.hold();
    await writer.submit(record(0));
    let settled = false;
    const pending = writer.submit(rec).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(settled, false, `${kind}: answers only after its line is written`);
    target.release();
    await pending;
    await writer.close();
    assert.equal(writer.stats.shed, 1, kind);
    assert.deepEqual(target.lines.map((l) => JSON.parse(l).decision), [rec.decision], kind);
  }
});
