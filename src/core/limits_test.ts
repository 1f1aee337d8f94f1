import assert from "node:assert/strict";
import { isCodeModeError } from "../errors.ts";
import {
  defaultLimits,
  executionBudgets,
  LIMIT_FIELDS,
  limitsProblems,
  resolveLimits,
  validateLimits,
} from "./limits.ts";

Deno.test("defaultLimits has the seed's ten defaults plus the memory extension", () => {
  assert.deepEqual(defaultLimits(), {
    maxSourceBytes: 65_536,
    maxExecutionSteps: 1_000_000,
    maxExecutionTime: 5_000,
    maxNativeCalls: 100,
    maxValueDepth: 32,
    maxValueBytes: 1_048_576,
    maxIntermediateValueBytes: 8_388_608,
    maxSearchQueryBytes: 256,
    maxSearchResults: 20,
    maxConcurrentExecutions: 8,
    maxMemoryBytes: 67_108_864,
    maxIntBits: 262_144,
  });
  assert.equal(LIMIT_FIELDS.length, 12);
  const a = defaultLimits() as { maxSourceBytes: number };
  a.maxSourceBytes = 1;
  assert.equal(defaultLimits().maxSourceBytes, 65_536, "a fresh copy each time");
});

Deno.test("resolveLimits: absent and zero take defaults, others are kept", () => {
  assert.deepEqual(resolveLimits(), defaultLimits());
  assert.deepEqual(resolveLimits({}), defaultLimits());
  const zeros = Object.fromEntries(LIMIT_FIELDS.map((f) => [f, 0]));
  assert.deepEqual(resolveLimits(zeros), defaultLimits());
  const r = resolveLimits({ maxExecutionTime: 2_000, maxSearchResults: 1 });
  assert.equal(r.maxExecutionTime, 2_000);
  assert.equal(r.maxSearchResults, 1);
  assert.equal(r.maxNativeCalls, 100);
  assert.ok(Object.isFrozen(r));
});

Deno.test("resolveLimits rejects every negative field, listing them all", () => {
  for (const field of LIMIT_FIELDS) {
    assert.throws(() => resolveLimits({ [field]: -1 }), (e) => {
      assert.ok(isCodeModeError(e, "invalid_registration"));
      assert.match(e.message, new RegExp(`${field} must not be negative`));
      return true;
    });
  }
  const problems = limitsProblems({ maxSourceBytes: -1, maxValueDepth: -5 });
  assert.equal(problems.length, 2);
});

Deno.test("resolveLimits rejects non-integers, too-large values and unknown fields", () => {
  assert.match(limitsProblems({ maxValueDepth: 1.5 })[0], /must be an integer/);
  assert.match(limitsProblems({ maxValueDepth: NaN })[0], /must be an integer/);
  assert.match(limitsProblems({ maxValueDepth: "3" })[0], /must be an integer \(got string\)/);
  assert.match(limitsProblems({ maxExecutionTime: 2 ** 31 })[0], /at most 2147483647/);
  assert.deepEqual(limitsProblems({ maxExecutionTime: 2 ** 31 - 1 }), []);
  assert.match(limitsProblems({ maxExecutionTimeMs: 5 })[0], /unknown field "maxExecutionTimeMs"/);
  assert.deepEqual(limitsProblems(null), ["limits must be an object"]);
});

Deno.test("validateLimits rejects zero and other non-positive fields of a resolved set", () => {
  validateLimits(defaultLimits());
  assert.throws(
    () => validateLimits({ ...defaultLimits(), maxNativeCalls: 0 }),
    /maxNativeCalls must be positive \(got 0\)/,
  );
  assert.throws(() => validateLimits({ ...defaultLimits(), maxValueBytes: -3 }), /must be positive/);
  assert.throws(() => validateLimits({ ...defaultLimits(), maxSearchResults: 2.5 }), /must be an integer/);
  assert.throws(() => validateLimits({ ...defaultLimits(), maxExecutionTime: 2 ** 31 }), /at most/);
  assert.throws(
    () => validateLimits({ ...defaultLimits(), maxSourceBytes: 0, maxValueDepth: 0 }),
    (e) =>
      isCodeModeError(e, "invalid_registration") && /maxSourceBytes/.test(e.message) &&
      /maxValueDepth/.test(e.message),
  );
});

Deno.test("executionBudgets keeps exactly the fields an executor enforces", () => {
  const limits = resolveLimits({ maxExecutionTime: 1_234, maxMemoryBytes: 4_096, maxSearchResults: 3 });
  const budgets = executionBudgets(limits);
  assert.deepEqual(budgets, {
    maxSourceBytes: 65_536,
    maxExecutionSteps: 1_000_000,
    maxExecutionTime: 1_234,
    maxNativeCalls: 100,
    maxValueDepth: 32,
    maxValueBytes: 1_048_576,
    maxIntermediateValueBytes: 8_388_608,
    maxMemoryBytes: 4_096,
    maxIntBits: 262_144,
  });
  assert.ok(Object.isFrozen(budgets));
});

Deno.test("maxIntBits has a floor: an int cap too small for ordinary programs is refused", () => {
  assert.deepEqual(limitsProblems({ maxIntBits: 1_024 }), []);
  assert.deepEqual(limitsProblems({ maxIntBits: 1_023 }), [
    "limits: maxIntBits must be at least 1024 (got 1023)",
  ]);
  assert.throws(
    () => validateLimits({ ...resolveLimits(), maxIntBits: 64 }),
    /maxIntBits must be at least 1024/,
  );
  assert.equal(resolveLimits({ maxIntBits: 0 }).maxIntBits, 262_144);
});
