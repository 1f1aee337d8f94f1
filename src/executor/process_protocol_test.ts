import assert from "node:assert/strict";
import { encodeFrame, FrameDecoder, FrameError, SyncFrameReader } from "./process_protocol.ts";

const limits = (maxPayload: number) => ({ maxHeaderBytes: 256, maxPayloadBytes: () => maxPayload });

function prefix(headerBytes: number, payloadBytes: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setUint32(0, headerBytes, true);
  new DataView(out.buffer).setUint32(4, payloadBytes, true);
  return out;
}

Deno.test("frames: a stream split at every byte reassembles into the same frames", () => {
  const a = encodeFrame({ t: "call", id: 1, seq: 1, cap: 0 }, new Uint8Array([1, 2, 3]));
  const b = encodeFrame({ t: "done", id: 1 });
  const c = encodeFrame({ t: "reply", seq: 2 }, new Uint8Array(5000).fill(7));
  const stream = new Uint8Array([...a, ...b, ...c]);
  const decoder = new FrameDecoder(limits(10_000));
  const frames = [];
  for (let i = 0; i < stream.length; i++) frames.push(...decoder.push(stream.subarray(i, i + 1)));
  assert.deepEqual(frames.map((f) => f.header), [
    { t: "call", id: 1, seq: 1, cap: 0 },
    { t: "done", id: 1 },
    { t: "reply", seq: 2 },
  ]);
  assert.deepEqual([...frames[0].payload], [1, 2, 3]);
  assert.equal(frames[1].payload.length, 0);
  assert.equal(frames[2].payload.length, 5000);
  assert.ok(frames[2].payload.every((x) => x === 7));
  // Several frames in one chunk decode at once.
  assert.equal(new FrameDecoder(limits(10_000)).push(stream).length, 3);
});

Deno.test("frames: an oversized frame is refused from its prefix, before its body arrives", () => {
  const decoder = new FrameDecoder(limits(100));
  assert.throws(
    () => decoder.push(prefix(10, 101)),
    (e) => e instanceof FrameError && /payload of 101/.test(e.message),
  );
  assert.throws(() => new FrameDecoder(limits(100)).push(prefix(257, 0)), /header of 257 bytes/);
  assert.throws(() => new FrameDecoder(limits(100)).push(prefix(0, 0)), /header of 0 bytes/);
  // A partial prefix is only buffered.
  assert.deepEqual(new FrameDecoder(limits(100)).push(prefix(10, 101).subarray(0, 7)), []);
});

Deno.test("frames: a header must be a JSON object with a string type", () => {
  const bad = (text: string) => {
    const h = new TextEncoder().encode(text);
    return new Uint8Array([...prefix(h.length, 0), ...h]);
  };
  for (const text of ["{nope", "[1]", '{"t":1}', "null", '"t"']) {
    assert.throws(() => new FrameDecoder(limits(10)).push(bad(text)), FrameError, text);
  }
  const invalidUtf8 = new Uint8Array([...prefix(3, 0), 0xff, 0xfe, 0xfd]);
  assert.throws(() => new FrameDecoder(limits(10)).push(invalidUtf8), /not UTF-8 JSON/);
});

Deno.test("frames: the blocking reader reads partial chunks and tells a clean end from a cut frame", () => {
  const stream = new Uint8Array([
    ...encodeFrame({ t: "run", id: 3 }),
    ...encodeFrame({ t: "reply", seq: 1 }, new Uint8Array(100_000).fill(1)),
  ]);
  let pos = 0;
  // Hands out at most 999 bytes per read, like a pipe.
  const reader = new SyncFrameReader(
    (buf) => {
      if (pos >= stream.length) return null;
      const n = Math.min(buf.length, 999, stream.length - pos);
      buf.set(stream.subarray(pos, pos + n));
      pos += n;
      return n;
    },
    1024,
    1 << 20,
  );
  assert.deepEqual(reader.next()?.header, { t: "run", id: 3 });
  const big = reader.next();
  assert.equal(big?.payload.length, 100_000);
  assert.equal(reader.next(), null);

  const cut = encodeFrame({ t: "run" }).subarray(0, 10);
  let given = false;
  const truncated = new SyncFrameReader(
    (buf) => {
      if (given) return null;
      given = true;
      buf.set(cut);
      return cut.length;
    },
    1024,
    1024,
  );
  assert.throws(() => truncated.next(), /input ended inside a frame/);
  const limited = new SyncFrameReader(
    (buf) => {
      buf.set(prefix(10, 5000));
      return 8;
    },
    1024,
    1024,
  );
  assert.throws(() => limited.next(), /exceeds the limits/);
});

Deno.test("frames: headers of any text and length round-trip byte for byte, either side of the ASCII fast path", () => {
  const pieces = ["a", '"', "\\", "\n", "\u007f", "é", "\u0080", "€", "😀", "\ud800"];
  let seed = 11;
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const cases: { t: string; [k: string]: unknown }[] = [];
  for (let len = 220; len <= 300; len++) {
    // Pure ASCII text around the 256-byte edge, then the same with one non-ASCII char at a random place.
    const text = "x".repeat(len);
    cases.push({ t: "run", source: text });
    const at = rand(len);
    cases.push({ t: "run", source: text.slice(0, at) + pieces[rand(pieces.length)] + text.slice(at + 1) });
  }
  for (let i = 0; i < 200; i++) {
    const n = rand(40);
    cases.push({
      t: "done",
      id: i,
      message: Array.from({ length: n }, () => pieces[rand(pieces.length)]).join(""),
    });
  }
  for (const header of cases) {
    const frame = encodeFrame(header, new Uint8Array([rand(256)]));
    const json = new TextEncoder().encode(JSON.stringify(header));
    assert.equal(new DataView(frame.buffer).getUint32(0, true), json.length, "the prefix counts UTF-8 bytes");
    assert.deepEqual(frame.subarray(8, 8 + json.length), json, "the header is the UTF-8 of its JSON");
    const [decoded] = new FrameDecoder({ maxHeaderBytes: 4096, maxPayloadBytes: () => 1 }).push(frame);
    // A lone surrogate is not valid UTF-8: TextEncoder writes U+FFFD, so compare with what it keeps.
    assert.deepEqual(decoded.header, JSON.parse(new TextDecoder().decode(json)));
  }
});

Deno.test("frames: a short header with bytes that are not UTF-8 is still refused", () => {
  for (
    const bytes of [[0x7b, 0xff, 0x7d], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [
      0xf8,
      0x88,
      0x80,
      0x80,
      0x80,
    ]]
  ) {
    // Inside a JSON string, so that only the UTF-8 check can refuse the header (read as Latin-1 it parses).
    const header = [...new TextEncoder().encode('{"t":"'), ...bytes, ...new TextEncoder().encode('"}')];
    const frame = new Uint8Array([...prefix(header.length, 0), ...header]);
    assert.throws(() => new FrameDecoder(limits(10)).push(frame), /not UTF-8 JSON/, String(bytes));
    let used = false;
    const reader = new SyncFrameReader(
      (buf) => {
        if (used) return null;
        used = true;
        buf.set(frame);
        return frame.length;
      },
      256,
      10,
    );
    assert.throws(() => reader.next(), /not UTF-8 JSON/, String(bytes));
  }
});
