import assert from "node:assert/strict";
import {
  CapabilityError,
  checkRegistration,
  isModelSafeText,
  MAX_SCHEMA_DEPTH,
  nameProblem,
  RegistrationError,
  RESERVED_ROOTS,
} from "./capability.ts";
import { isCodeModeError } from "../errors.ts";
import type { TypeSchema } from "../schema.ts";
import { standardPredeclared, UNIVERSE } from "../starlark/mod.ts";
import { t } from "./types.ts";

const base = {
  name: "records.lookup",
  summary: "Look up one stored record",
  output: t.struct({ ok: t.bool() }),
  handler: () => ({ ok: true }),
};

function diags(def: Record<string, unknown>): readonly string[] {
  return checkRegistration({ ...base, ...def }, 0).diagnostics;
}

function expectOne(def: Record<string, unknown>, pattern: RegExp): void {
  const d = diags(def);
  assert.equal(d.length, 1, `expected one diagnostic, got ${JSON.stringify(d)}`);
  assert.match(d[0], pattern);
}

Deno.test("a valid registration yields a frozen canonical spec", () => {
  const check = checkRegistration(base, 4);
  assert.deepEqual(check.diagnostics, []);
  const spec = check.spec!;
  assert.equal(spec.index, 4);
  assert.equal(spec.id, "records.lookup", "empty ID defaults to the name");
  assert.equal(spec.description, base.summary, "empty description defaults to the summary");
  assert.deepEqual(spec.searchTerms, []);
  assert.deepEqual(spec.input, { kind: "struct", fields: [] }, "absent input = no parameters");
  assert.ok(Object.isFrozen(spec) && Object.isFrozen(spec.output));
  assert.notEqual(spec.output, base.output, "schemas are copied");
});

Deno.test("names: at least two identifier segments", () => {
  for (const name of ["records", "", ".a", "a.", "a..b", "a.1b", "a.b-c", "a.def", "lambda.x", "a. b"]) {
    assert.ok(nameProblem(name), name);
  }
  for (
    const name of ["records.lookup", "a.b.c.d", "_x.y", "stats.sum", "time.now", "é.ü", "x.None", "a.json"]
  ) {
    assert.equal(nameProblem(name), undefined, name);
  }
  expectOne({ name: "records" }, /capability "records" \(registration 1\): name must have at least two/);
  expectOne({ name: "records.look-up" }, /segment "look-up" is not a valid Starlark identifier/);
  expectOne({ name: 42 }, /capability registration 1: name must be a string/);
});

Deno.test("names: every reserved root is rejected, nested segments are free", () => {
  const universe = [
    "None",
    "True",
    "False",
    "abs",
    "any",
    "all",
    "bool",
    "bytes",
    "chr",
    "dict",
    "dir",
    "enumerate",
    "fail",
    "float",
    "getattr",
    "hasattr",
    "hash",
    "int",
    "len",
    "list",
    "max",
    "min",
    "ord",
    "print",
    "range",
    "repr",
    "reversed",
    "set",
    "sorted",
    "str",
    "tuple",
    "type",
    "zip",
    "sum",
    "json",
    "math",
  ];
  assert.equal(RESERVED_ROOTS.size, universe.length);
  for (const root of universe) {
    assert.ok(RESERVED_ROOTS.has(root), root);
    assert.match(nameProblem(`${root}.x`) ?? "", /is reserved/, root);
    assert.equal(nameProblem(`x.${root}`), undefined, `nested ${root}`);
  }
  assert.equal(nameProblem("time.now"), undefined, "no built-in time module");
  expectOne({ name: "list.items" }, /root "list" is reserved/);
});

Deno.test("names: the reserved roots are exactly what the engine predeclares", () => {
  // A builtin added to the engine must be reserved too, or a capability could shadow it.
  const engine = [...UNIVERSE.keys(), ...Object.keys(standardPredeclared())].sort();
  assert.deepEqual([...RESERVED_ROOTS].sort(), engine);
});

Deno.test("IDs: defaulting, explicit rules", () => {
  assert.equal(checkRegistration({ ...base, id: "" }, 0).spec?.id, "records.lookup");
  assert.equal(
    checkRegistration({ ...base, id: "records.entry.lookup" }, 0).spec?.id,
    "records.entry.lookup",
  );
  assert.equal(checkRegistration({ ...base, id: "any text / is fine" }, 0).spec?.id, "any text / is fine");
  expectOne({ id: " x" }, /id must not have surrounding whitespace/);
  expectOne({ id: "x\n" }, /id must not have surrounding whitespace/);
  expectOne({ id: 7 }, /id must be a string/);
  expectOne({ id: "a\ud800" }, /id is not well-formed Unicode/);
});

Deno.test("summary and description rules", () => {
  expectOne({ summary: "" }, /summary must not be empty/);
  expectOne({ summary: " padded" }, /summary must not have surrounding whitespace/);
  expectOne({ summary: "padded\u00a0" }, /summary must not have surrounding whitespace/);
  expectOne({ summary: undefined }, /summary must be a string/);
  expectOne({ description: "trailing " }, /description must not have surrounding whitespace/);
  expectOne({ description: 3 }, /description must be a string/);
  assert.equal(
    checkRegistration({ ...base, description: "More detail." }, 0).spec?.description,
    "More detail.",
  );
  assert.equal(checkRegistration({ ...base, description: "" }, 0).spec?.description, base.summary);
});

Deno.test("search terms: ≤16 non-empty trimmed phrases, ≤1,024 bytes, cloned", () => {
  const terms = ["fetch entry", "find stored item"];
  const spec = checkRegistration({ ...base, searchTerms: terms }, 0).spec!;
  assert.deepEqual(spec.searchTerms, terms);
  terms.push("later");
  assert.equal(spec.searchTerms.length, 2, "cloned");
  assert.equal(diags({ searchTerms: Array(16).fill("x") }).length, 0);
  expectOne({ searchTerms: Array(17).fill("x") }, /searchTerms has 17 phrases; at most 16/);
  expectOne({ searchTerms: ["ok", ""] }, /searchTerms\[1\] must not be empty/);
  expectOne({ searchTerms: [" x"] }, /searchTerms\[0\] must not have surrounding whitespace/);
  expectOne({ searchTerms: [1] }, /searchTerms\[0\] must be a string/);
  expectOne({ searchTerms: "x" }, /searchTerms must be an array/);
  assert.equal(diags({ searchTerms: ["a".repeat(1000), "b".repeat(24)] }).length, 0, "exactly 1,024 bytes");
  expectOne(
    { searchTerms: ["a".repeat(1000), "é".repeat(13)] },
    /searchTerms total 1026 bytes; at most 1024/,
  );
});

Deno.test("metadata bytes count raw name, summary, explicit description and terms", () => {
  const c = checkRegistration({ ...base, description: "ééé", searchTerms: ["ab", "c"] }, 0);
  assert.equal(c.metadataBytes, "records.lookup".length + base.summary.length + 6 + 3);
  assert.equal(checkRegistration(base, 0).metadataBytes, "records.lookup".length + base.summary.length);
});

Deno.test("handler must be a function", () => {
  expectOne({ handler: undefined }, /handler must be a function/);
  expectOne({ handler: "x" }, /handler must be a function/);
});

Deno.test("type descriptors: roots are structs, fields are unique identifiers", () => {
  expectOne({ output: undefined }, /output is required/);
  expectOne({ output: t.str() }, /output must be a struct \(t.struct\(\{...\}\)\), not str/);
  expectOne({ input: t.list(t.str()) }, /input must be a struct/);
  expectOne({ input: t.optional(t.struct({})) }, /input must be a struct/);
  expectOne(
    { input: t.struct({ "bad-name": t.str() }) },
    /input: field name "bad-name" is not a valid Starlark identifier/,
  );
  expectOne({ input: t.struct({ def: t.str() }) }, /field name "def" is not a valid/);
  const dup = { kind: "struct", fields: [{ name: "a", type: t.str() }, { name: "a", type: t.int() }] };
  expectOne({ input: dup }, /input: duplicate field name "a"/);
  expectOne(
    { output: t.struct({ x: { kind: "decimal" } as never }) },
    /output.x: unknown type kind "decimal"/,
  );
  expectOne({ output: t.struct({ x: t.list({} as never) }) }, /output.x\[\]: unknown type kind undefined/);
  expectOne({ output: t.struct({ x: null as never }) }, /output.x: not a type descriptor/);
  expectOne({ output: { kind: "struct", fields: "a" } }, /output: struct fields must be an array/);
  expectOne({ output: { kind: "struct", fields: [5] } }, /output: field 0 is not an object/);
});

Deno.test("type descriptors: cycles and excessive nesting are rejected", () => {
  const cyclic: { kind: "list"; of: TypeSchema } = { kind: "list", of: t.str() };
  cyclic.of = cyclic;
  expectOne({ output: t.struct({ x: cyclic }) }, /output.x\[\]: cyclic type descriptor/);
  let deep: TypeSchema = t.str();
  for (let i = 0; i < MAX_SCHEMA_DEPTH; i++) deep = t.list(deep);
  expectOne({ output: t.struct({ x: deep }) }, /type nesting is deeper than 64 levels/);
  // The same descriptor used twice (a DAG, not a cycle) is fine.
  const shared = t.struct({ a: t.int() });
  assert.equal(diags({ output: t.struct({ x: shared, y: t.list(shared) }) }).length, 0);
});

Deno.test("all per-capability problems are reported together, each naming the capability", () => {
  const d =
    checkRegistration({ name: "list.x", summary: " ", handler: null, output: t.int() }, 2).diagnostics;
  assert.equal(d.length, 4);
  for (const line of d) assert.match(line, /^capability "list\.x" \(registration 3\): /);
  assert.deepEqual(checkRegistration(null, 0).diagnostics, [
    "capability registration 1: definition must be an object",
  ]);
});

Deno.test("CapabilityError and model-safe text", () => {
  const e = new CapabilityError("record not found", { safeForModel: true, cause: 1 });
  assert.equal(e.safeForModel, true);
  assert.equal(e.cause, 1);
  assert.equal(new CapabilityError("x").safeForModel, false);
  assert.ok(isModelSafeText("record not found"));
  assert.ok(isModelSafeText("é".repeat(128)));
  assert.ok(!isModelSafeText("é".repeat(129)), "257 bytes");
  assert.ok(!isModelSafeText(""));
  assert.ok(!isModelSafeText("a\nb"));
  assert.ok(!isModelSafeText("a\u202eb"), "format characters");
  assert.ok(!isModelSafeText("a\ud800"));
});

Deno.test("RegistrationError joins diagnostics", () => {
  const one = new RegistrationError(["a: x"]);
  assert.ok(isCodeModeError(one, "invalid_registration"));
  assert.equal(one.message, "a: x");
  const two = new RegistrationError(["a: x", "b: y"]);
  assert.equal(two.message, "2 registration problems:\n- a: x\n- b: y");
  assert.deepEqual(two.diagnostics, ["a: x", "b: y"]);
});
