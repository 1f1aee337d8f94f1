/**
 * The audit tap: every submitted record reaches the listeners (in order, before the writer) and the
 * wrapped port; a throwing listener changes nothing for the call; a removed listener hears no more.
 */
import assert from "node:assert/strict";
import { authFailureRecord, GatewayError } from "../domain/mod.ts";
import { AuditTap } from "./tap.ts";

Deno.test("audit tap: listeners see every record, then the writer gets it; failures stay theirs", async () => {
  const order: string[] = [];
  const written: unknown[] = [];
  const tap = new AuditTap({
    submit: (record) => {
      order.push("writer");
      written.push(record);
      return record.remote_addr === "fail"
        ? Promise.reject(new GatewayError("audit_unavailable"))
        : Promise.resolve();
    },
  });
  const seen: unknown[] = [];
  const stop = tap.listen((record) => {
    order.push("listener");
    seen.push(record);
  });
  tap.listen(() => {
    throw new Error("a broken listener");
  });
  const records = Array.from(
    { length: 5 },
    (_, i) => authFailureRecord(new Date(i), i, undefined, undefined, `a${i}`),
  );
  for (const r of records) await tap.submit(r);
  assert.deepEqual(seen, records);
  assert.deepEqual(written, records);
  assert.deepEqual(order.slice(0, 2), ["listener", "writer"]);
  // The writer's verdict (a security record that could not be written) is the caller's, as before.
  await assert.rejects(
    tap.submit(authFailureRecord(new Date(), 0, undefined, undefined, "fail")),
    GatewayError,
  );
  stop();
  await tap.submit(records[0]);
  assert.equal(seen.length, 6);
  assert.equal(written.length, 7);
});
