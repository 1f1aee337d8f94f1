import assert from "node:assert/strict";
import { TopLevelIdScanner } from "./frame_cap.ts";

const encoder = new TextEncoder();

function scan(text: string, pieces: number): TopLevelIdScanner {
  const bytes = encoder.encode(text);
  const scanner = new TopLevelIdScanner();
  const step = Math.max(1, Math.ceil(bytes.length / pieces));
  for (let at = 0; at < bytes.length; at += step) scanner.push(bytes.subarray(at, at + step));
  return scanner;
}

Deno.test("scanner: finds the top-level id wherever it is, in any split, never a nested one", () => {
  const big = "x".repeat(10_000);
  const ids: (string | number)[] = [0, 7, 123456789, -3, "a", "req-1", 'q"uote', "back\\slash", "ünï"];
  for (const id of ids) {
    const idJson = JSON.stringify(id);
    const texts = [
      `{"jsonrpc":"2.0","id":${idJson},"result":{"content":[{"type":"text","text":"${big}"}]}}`,
      `{"jsonrpc":"2.0","result":{"id":"nested","content":[{"text":"${big}\\"id\\":9"}]},"id":${idJson}}`,
      ` { "result" : [ { "id" : 1 } , "${big}" ] , "id" : ${idJson} } `,
      `{"result":{"a":{"b":{"id":"deep"}}},"error":null,"id":${idJson}}`,
    ];
    for (const text of texts) {
      for (const pieces of [1, 2, 7, 100, text.length]) {
        const s = scan(text, pieces);
        assert.deepEqual(s.id, id, `${idJson} in ${pieces} pieces: ${text.slice(0, 60)}`);
        assert.equal(s.hasMethod, false);
        assert.equal(s.bytes, encoder.encode(text).length);
      }
    }
  }
});

Deno.test("scanner: requests and notifications are told apart; malformed input leaves the id unknown", () => {
  assert.equal(
    scan(`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`, 3).hasMethod,
    true,
  );
  assert.equal(scan(`{"jsonrpc":"2.0","method":"notifications/message","params":{"id":3}}`, 3).id, undefined);
  assert.equal(scan(`{"jsonrpc":"2.0","params":{"method":"x"},"id":4}`, 5).hasMethod, false);
  for (
    const bad of [
      `{"id":`,
      `{"id":"unterminated`,
      `{"id":{"a":1}}`,
      `{"id":[1]}`,
      `{"id":1.5}`,
      `["id",1]`,
      `garbage`,
    ]
  ) {
    assert.equal(scan(bad, 2).id, undefined, bad);
  }
  assert.equal(scan(`{"id":null}`, 1).id, undefined);
});
