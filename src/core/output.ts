/**
 * Host-side conversion of handler outputs: each output is converted against the capability's output
 * schema into a fresh value (the host never trusts a handler's object as it is).
 *
 * Output conversion reads own enumerable properties only (inherited fields and prototype getters are
 * not part of a result), counts the wire size of what it builds as it goes and refuses a result past
 * `maxValueBytes` or `maxValueDepth` before walking the rest of it, refuses a cycle, and turns anything
 * the result throws while it is read (a getter) into `capability_failure`. Ints outside ±(2^53−1) are
 * `capability_failure`; strings are made well-formed, and two dict keys equal once made well-formed are
 * `capability_failure` too.
 *
 * A Proxy anywhere in a result (or an object inheriting from one) is refused unread, as
 * `capability_failure`: a result is data, and a Proxy is code that runs on every read. Its traps can
 * throw, and one `ownKeys` trap returning two million keys holds the thread for seconds inside V8's
 * own validation of the list, before any budget could be checked (see `opaque.ts`). The conversion also
 * polls the execution's deadline as it goes, so getters that take their time end it at the deadline.
 *
 * @module
 */
import { budgetError } from "../budgets.ts";
import { CodeModeError } from "../errors.ts";
import { varintLength } from "../executor/mod.ts";
import { setOwn } from "../plain.ts";
import type { TypeSchema } from "../schema.ts";
import { utf8Length } from "../text.ts";
import type { StructSchema } from "./types.ts";
import { at, BOOL, exactFloat, FLOAT, INT, PathFailure, renderPath, STR } from "./value_path.ts";
import { isInstance, isOpaque } from "./opaque.ts";

/**
 * How many values are converted between two looks at the clock (one costs ~300 ns, a plain value
 * ~100 ns); once two looks are over {@link SLOW_MS} apart (getters that take their time), every value.
 */
const POLL_EVERY = 64;
const SLOW_MS = 2;

/** Unwinds a conversion that ran past the execution's deadline. */
class OutOfTime {}

type OutputFailure = PathFailure<"capability_failure" | "resource_limit">;

function outputFailure(
  code: "capability_failure" | "resource_limit",
  render: (p: string) => string,
  budget?: "maxValueDepth" | "maxValueBytes",
) {
  return new PathFailure(code, render, undefined, budget);
}

function describeJS(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "NaN";
    if (!Number.isFinite(v)) return "infinity";
    if (!Number.isInteger(v)) return "non-integer number";
    if (!Number.isSafeInteger(v)) return "unsafe integer";
    return "number";
  }
  if (v instanceof Map) return "Map";
  if (v instanceof Set) return "Set";
  if (ArrayBuffer.isView(v)) return "binary data";
  return typeof v;
}

const isEnumerable = Object.prototype.propertyIsEnumerable;
const mapEntries = Map.prototype.entries;

function wrong(what: string, v: unknown): OutputFailure {
  return outputFailure("capability_failure", (p) => `${p} must be ${what}, got ${describeJS(v)}`);
}

/** A value whose own properties can be a struct or dict: not a list, Map, Set or binary data. */
function isRecordLike(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Map) &&
    !(v instanceof Set) && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer);
}

/**
 * One output conversion: the depth bound, the bytes left of `maxValueBytes` (charged with the exact
 * wire size of each converted value, as `encodeHostValue` will write it), and the containers on the
 * current path (a container met again inside itself is a cycle).
 */
class Conversion {
  #left: number;
  #untilPoll = POLL_EVERY;
  #pollEvery = POLL_EVERY;
  #lastPoll = performance.now();
  readonly #ancestors = new Set<object>();

  constructor(readonly maxDepth: number, readonly maxBytes: number, readonly deadline: number) {
    this.#left = maxBytes;
  }

  #tooBig(): OutputFailure {
    return outputFailure(
      "resource_limit",
      () => `result encodes to more than ${this.maxBytes} bytes`,
      "maxValueBytes",
    );
  }

  /** Charges `n` bytes of wire encoding. */
  #charge(n: number): void {
    this.#left -= n;
    if (this.#left < 0) throw this.#tooBig();
  }

  /** Refuses at once when `n` more values (each at least `size` bytes) cannot fit. */
  #fits(n: number, size: number): void {
    if (n * size > this.#left) throw this.#tooBig();
  }

  #enter(o: object): void {
    if (this.#ancestors.has(o)) {
      throw outputFailure("capability_failure", (p) => `${p} contains itself (a cycle)`);
    }
    this.#ancestors.add(o);
  }

  #string(v: string): string {
    this.#fits(v.length, 1); // a UTF-16 unit is at least one UTF-8 byte: refuse giant strings unread
    const s = v.toWellFormed();
    const n = utf8Length(s);
    this.#charge(varintLength(n) + n);
    return s;
  }

  /** Converts the key `key` of a dict and its value into `out`. */
  #entry(out: Record<string, unknown>, key: string, value: unknown, of: TypeSchema, level: number): void {
    const k = this.#string(key);
    if (Object.hasOwn(out, k)) {
      throw outputFailure(
        "capability_failure",
        (p) => `${p} has two keys that are the same once made well-formed (${JSON.stringify(k)})`,
      );
    }
    try {
      setOwn(out, k, this.convert(of, value, level + 1));
    } catch (e) {
      throw at(unreadable(e), { key: k });
    }
  }

  #poll(): void {
    const now = performance.now();
    if (now >= this.deadline) throw new OutOfTime();
    if (now - this.#lastPoll > SLOW_MS) this.#pollEvery = 1;
    this.#lastPoll = now;
    this.#untilPoll = this.#pollEvery;
  }

  convert(schema: TypeSchema, v: unknown, level: number): unknown {
    if (--this.#untilPoll === 0) this.#poll();
    if ((typeof v === "object" && v !== null || typeof v === "function") && isOpaque(v)) {
      throw outputFailure("capability_failure", (p) => `${p} is a Proxy (a result must be plain data)`);
    }
    if (level > this.maxDepth) {
      throw outputFailure(
        "resource_limit",
        (p) => `${p} is nested deeper than ${this.maxDepth} levels`,
        "maxValueDepth",
      );
    }
    switch (schema.kind) {
      case "str":
        if (typeof v !== "string") throw wrong(schema.kind, v);
        this.#charge(1);
        return this.#string(v);
      case "int": {
        let n: number;
        if (typeof v === "bigint") {
          if (v < BigInt(Number.MIN_SAFE_INTEGER) || v > BigInt(Number.MAX_SAFE_INTEGER)) {
            throw outputFailure("capability_failure", (p) => `${p} is outside the safe integer range`);
          }
          n = Number(v);
        } else if (typeof v === "number" && Number.isSafeInteger(v)) {
          n = v === 0 ? 0 : v;
        } else {
          throw wrong("a safe integer", v);
        }
        this.#charge(1 + varintLength(Math.abs(n)));
        return n;
      }
      case "float": {
        // A handler that computes an integral amount may return it as a bigint; it is the same float.
        const x = typeof v === "bigint" ? exactFloat(v) : v;
        if (typeof x !== "number" || !Number.isFinite(x)) throw wrong("a finite float", v);
        this.#charge(9);
        return x;
      }
      case "bool":
        if (typeof v !== "boolean") throw wrong(schema.kind, v);
        this.#charge(1);
        return v;
      case "optional":
      case "nullable":
        if (v !== null && v !== undefined) return this.convert(schema.of, v, level);
        this.#charge(1);
        return null;
      case "list":
        return this.#list(schema.of, v, level);
      case "dict":
        return this.#dict(schema.of, v, level);
      case "struct":
        return this.#struct(schema, v, level);
      case "json":
        return this.#json(schema, v, level);
    }
  }

  /** A JSON value converts as the stricter kind it is (an absent value is None). */
  #json(schema: TypeSchema, v: unknown, level: number): unknown {
    if (v === null || v === undefined) {
      this.#charge(1);
      return null;
    }
    switch (typeof v) {
      case "string":
        return this.convert(STR, v, level);
      case "boolean":
        return this.convert(BOOL, v, level);
      case "bigint":
        return this.convert(INT, v, level);
      case "number":
        return this.convert(Number.isSafeInteger(v) ? INT : FLOAT, v, level);
    }
    if (Array.isArray(v) || ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      return this.#list(schema, v, level);
    }
    if (v instanceof Map || isRecordLike(v)) return this.#dict(schema, v, level);
    throw wrong("a JSON value", v);
  }

  #list(of: TypeSchema, v: unknown, level: number): unknown {
    // A missing list is None, as a nil slice is in the seed.
    if (v === null || v === undefined) {
      this.#charge(1);
      return null;
    }
    let items: ArrayLike<unknown>;
    if (Array.isArray(v)) items = v;
    else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) items = v as unknown as ArrayLike<unknown>;
    else throw wrong("a list", v);
    const n = items.length;
    this.#charge(1 + varintLength(n));
    this.#fits(n, 1);
    this.#enter(items);
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      try {
        out[i] = this.convert(of, items[i], level + 1);
      } catch (e) {
        throw at(unreadable(e), i);
      }
    }
    this.#ancestors.delete(items);
    return out;
  }

  #dict(of: TypeSchema, v: unknown, level: number): unknown {
    if (v === null || v === undefined) {
      this.#charge(1);
      return null;
    }
    const out: Record<string, unknown> = {};
    if (v instanceof Map) {
      const n = v.size;
      this.#charge(1 + varintLength(n));
      this.#fits(n, 2); // a key length and a value tag at least
      this.#enter(v);
      // The intrinsic iterator: a Map subclass's own iterator could yield more entries than `size`.
      for (const [key, value] of mapEntries.call(v) as MapIterator<[unknown, unknown]>) {
        if (typeof key !== "string") {
          throw outputFailure("capability_failure", (p) => `${p} has a non-string key`);
        }
        this.#entry(out, key, value, of, level);
      }
      this.#ancestors.delete(v);
      return out;
    }
    if (!isRecordLike(v)) throw wrong("a dict", v);
    const keys = Object.keys(v);
    this.#charge(1 + varintLength(keys.length));
    this.#fits(keys.length, 2);
    this.#enter(v);
    for (const key of keys) {
      let value: unknown;
      try {
        value = v[key];
      } catch (e) {
        throw at(unreadable(e), { key });
      }
      this.#entry(out, key, value, of, level);
    }
    this.#ancestors.delete(v);
    return out;
  }

  #struct(schema: TypeSchema & { kind: "struct" }, v: unknown, level: number): unknown {
    if (!isRecordLike(v)) throw wrong("an object", v);
    this.#charge(1);
    this.#enter(v);
    const out: Record<string, unknown> = {};
    let present = 0;
    for (const f of schema.fields) {
      try {
        // Own enumerable properties only: an inherited field or a prototype getter is not data.
        const value = isEnumerable.call(v, f.name) ? v[f.name] : undefined;
        if (f.type.kind === "optional") {
          // An omitted optional field is absent, never None.
          if (value === null || value === undefined) continue;
        } else if (
          value === undefined && (f.type.kind === "str" || f.type.kind === "int" ||
            f.type.kind === "float" || f.type.kind === "bool" || f.type.kind === "struct")
        ) {
          throw outputFailure("capability_failure", (p) => `${p} is missing`);
        }
        const nameBytes = utf8Length(f.name);
        this.#charge(varintLength(nameBytes) + nameBytes);
        setOwn(out, f.name, this.convert(f.type.kind === "optional" ? f.type.of : f.type, value, level + 1));
        present++;
      } catch (e) {
        throw at(unreadable(e), f.name);
      }
    }
    this.#charge(varintLength(present));
    this.#ancestors.delete(v);
    return out;
  }
}

/** A failure thrown by the result itself while it was read (a getter), as ours. */
function unreadable(e: unknown): unknown {
  // Whatever a getter threw is inspected without running its code (it may be a Proxy itself).
  if (isInstance(e, PathFailure) || isInstance(e, OutOfTime)) return e;
  return new PathFailure("capability_failure", (p) => `${p} could not be read (it threw while read)`, e);
}

/**
 * Converts a handler's output for capability `name` to a fresh value that follows the output struct
 * exactly: undeclared and inherited properties are dropped, structs and dicts become fresh plain
 * objects with `Object.prototype` (their own properties only, `__proto__` included as data). Throws
 * `capability_failure` for a value of the wrong type, a non-finite float, an unsafe
 * integer, a cycle, two dict keys equal once made well-formed, or a value that throws while it is read
 * (the thrown value is the error's `cause`); and `resource_limit` for a value nested deeper than
 * `maxDepth` (the result struct is level 1) or whose wire encoding would exceed `maxBytes`, refused as
 * soon as the conversion gets there (a 2,000,000-item list is refused before its first item is read).
 * A plain object used as a dict is the one exception: JS cannot count its keys without listing them, so
 * `Object.keys` runs once (about as long as building the object took) before its size is checked; a
 * `Map` is refused from its `size` alone. Messages are host-facing; there is no model detail.
 */
export function convertOutput(
  name: string,
  schema: StructSchema,
  value: unknown,
  maxDepth: number,
  maxBytes: number = Number.MAX_SAFE_INTEGER,
  deadline: number = Infinity,
): Record<string, unknown> {
  try {
    if (maxDepth < 1) {
      throw outputFailure(
        "resource_limit",
        () => `result is nested deeper than ${maxDepth} levels`,
        "maxValueDepth",
      );
    }
    return new Conversion(maxDepth, maxBytes, deadline).convert(schema, value, 1) as Record<string, unknown>;
  } catch (err) {
    if (isInstance(err, OutOfTime)) {
      throw budgetError(
        "maxExecutionTime",
        undefined,
        `${name}: the deadline passed while its result was read`,
        {
          cause: new DOMException("execution deadline exceeded", "TimeoutError"),
        },
      );
    }
    const failure = unreadable(err) as OutputFailure;
    const message = `${name}: invalid handler output: ${failure.render(renderPath("result", failure.steps))}`;
    if (failure.code === "resource_limit" && failure.budget !== undefined) {
      // The program asked for too much data: name the budget so it can ask for less.
      const value = failure.budget === "maxValueBytes" ? maxBytes : maxDepth;
      throw budgetError(failure.budget, value, message, { where: `${name} result` });
    }
    // The handler's result is wrong, not the program: the model learns which capability, not why.
    throw new CodeModeError(failure.code, message, {
      detail: failure.code === "capability_failure" ? `${name}: invalid result` : undefined,
      ...(failure.cause === undefined ? {} : { cause: failure.cause }),
    });
  }
}
