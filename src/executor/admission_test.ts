/** Unit tests of the admission rules (reserved slots, light subjects, which idle sandbox gives way). */
import assert from "node:assert/strict";
import { type Admission, idleToEnd, isLight, mayStart, slotsWanted } from "./admission.ts";

function pool(held: Record<string, number>, queued: Record<string, number>, reserved = 1): Admission {
  const active = new Map(Object.entries(held).filter(([, n]) => n > 0));
  return {
    max: 8,
    reserved,
    maxPerSubject: 4,
    held: [...active.values()].reduce((a, b) => a + b, 0),
    active,
    queued: (s) => queued[s] ?? 0,
  };
}

Deno.test("admission: flooding subjects stop at max - reserved; a light subject still starts", () => {
  const a = pool({ h1: 4, h2: 3 }, { h1: 9, h2: 9, h3: 9, light: 1 });
  assert.equal(mayStart(a, "h2"), false, "7 held: the flood has reached max - reserved");
  assert.equal(mayStart(a, "h3"), false, "a flooding subject holding nothing is not light");
  assert.equal(isLight(a, "light"), true);
  assert.equal(mayStart(a, "light"), true);
  assert.equal(slotsWanted(a, ["h1", "h2", "h3", "light"]), 1, "only the light subject's slot is wanted");
  // Below the line the flood shares what is left, each within its share.
  const b = pool({ h1: 2 }, { h1: 9, h2: 9 });
  assert.equal(slotsWanted(b, ["h1", "h2"]), 5, "8 - 1 reserved - 2 held");
  // Without a reserve (small pools) nobody is light.
  assert.equal(isLight(pool({}, { light: 1 }, 0), "light"), false);
});

Deno.test("admission: the idle sandbox ended for the flood is never a light subject's last one", () => {
  const lightIdle = { lastUsed: 5 };
  const heavyIdle = { lastUsed: 10 };
  const idle = new Map([["light", [lightIdle]], ["h1", [heavyIdle]]]);
  // h1 holds slots, light holds none: light's sandbox is spared although it is older.
  assert.equal(idleToEnd(idle, pool({ h1: 3 }, { h2: 5 })), heavyIdle);
  assert.equal(idleToEnd(new Map([["light", [lightIdle]]]), pool({ h1: 3 }, {})), undefined);
  // Without a reserve, plain least-recently-used.
  assert.equal(idleToEnd(idle, pool({ h1: 3 }, {}, 0)), lightIdle);
});
