import assert from "node:assert/strict";
import { raceAbort } from "./abort.ts";

Deno.test("raceAbort settles with the promise while the signal stays quiet", async () => {
  const controller = new AbortController();
  assert.equal(await raceAbort(Promise.resolve(7), controller.signal), 7);
  await assert.rejects(() => raceAbort(Promise.reject(new Error("boom")), controller.signal), /boom/);
});

Deno.test("raceAbort rejects with the signal's reason when it aborts first, or was aborted already", async () => {
  const controller = new AbortController();
  const { promise, resolve } = Promise.withResolvers<number>();
  const raced = raceAbort(promise, controller.signal);
  const reason = new Error("stop");
  controller.abort(reason);
  await assert.rejects(() => raced, (e) => e === reason);
  resolve(1); // settling late changes nothing

  // A late rejection of the abandoned work must not surface as an unhandled rejection.
  const late = Promise.withResolvers<number>();
  await assert.rejects(() => raceAbort(late.promise, controller.signal), (e) => e === reason);
  late.reject(new Error("late"));
  await new Promise((r) => setTimeout(r, 0));
});
