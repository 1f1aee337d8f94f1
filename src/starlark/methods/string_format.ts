/**
 * `str.format`: `{}` (automatic numbering), `{0}`, `{name}`, conversions `!s`/`!r`, and `{{`/`}}`
 * escapes. Format specs, attribute/element syntax and nesting are rejected with the reference's messages.
 *
 * @module
 */
import {
  chargeBytes,
  displayString,
  EvalError,
  type Kwargs,
  repr,
  reprBounded,
  STEPS_PER_ESCAPE,
  stringTableKey,
  textBounded,
  TextBuilder,
  type Thread,
  type Value,
} from "../values/mod.ts";

const INT64_MAX = (1n << 63n) - 1n;

/** A field name made only of decimal digits, as an index (undefined when not one, or beyond int64). */
function decimalIndex(s: string): number | undefined {
  if (!/^[0-9]*$/.test(s)) return undefined;
  if (s.length > 18) {
    // Leading zeros do not count; beyond 19 digits it is over int64 (and BigInt of it would be slow).
    const t = s.replace(/^0+(?=.)/, "");
    if (t.length > 19 || BigInt(t) > INT64_MAX) return undefined;
    return Number(t);
  }
  return Number(s);
}

/** Appends the literal text `lit`, turning `}}` into `}` and rejecting a lone `}`. */
function literal(thread: Thread, out: TextBuilder, lit: string): void {
  for (;;) {
    const j = lit.indexOf("}");
    if (j < 0) {
      out.add(lit);
      return;
    }
    if (j + 1 === lit.length || lit[j + 1] !== "}") throw new EvalError("format: single '}' in format");
    thread.charge(STEPS_PER_ESCAPE); // a piece of its own: an escape's cost
    out.add(lit.slice(0, j + 1));
    lit = lit.slice(j + 2);
  }
}

/** Steps per replacement field (parsing it, converting its value, appending the text). */
const STEPS_PER_FIELD = 5;

/** Bytes of one entry of the index of many keyword arguments (a JS `Map` entry and its bucket). */
const INDEX_ENTRY_BYTES = 48;

/** `format_string.format(*args, **kwargs)`. */
export function formatMethod(thread: Thread, format: string, args: Value[], kwargs: Kwargs): Value {
  chargeBytes(thread, format.length);
  // Many named fields would each scan the keyword arguments: index them once, by table keys (as a dict
  // keys its table): names like "16384" (from `**kwargs`) would all fall in one bucket of V8's hash.
  let named: Map<string, Value> | undefined;
  if (kwargs.length > 8) {
    thread.allocate(INDEX_ENTRY_BYTES * kwargs.length);
    named = new Map();
    for (const [k, v] of kwargs) named.set(stringTableKey(k), v);
  }
  // Joined in polled chunks: a format of millions of fields (or `{{`) is millions of pieces.
  const out = new TextBuilder(thread);
  let size = 0;
  let auto = false, manual = false;
  let index = 0;
  for (;;) {
    const open = format.indexOf("{");
    literal(thread, out, open < 0 ? format : format.slice(0, open));
    if (open < 0) break;
    if (format[open + 1] === "{") {
      thread.charge(STEPS_PER_ESCAPE); // a piece of its own: an escape's cost
      out.add("{");
      format = format.slice(open + 2);
      continue;
    }
    format = format.slice(open + 1);
    thread.charge(STEPS_PER_FIELD);
    const close = format.indexOf("}");
    if (close < 0) throw new EvalError("format: unmatched '{' in format");
    let field = format.slice(0, close);
    format = format.slice(close + 1);

    let name: string, conv = "s", spec = "";
    const bang = field.indexOf("!");
    if (bang < 0) {
      const colon = field.indexOf(":");
      if (colon < 0) name = field;
      else [name, spec] = [field.slice(0, colon), field.slice(colon + 1)];
    } else {
      name = field.slice(0, bang);
      field = field.slice(bang + 1);
      const colon = field.indexOf(":");
      if (colon < 0) conv = field;
      else [conv, spec] = [field.slice(0, colon), field.slice(colon + 1)];
    }

    let arg: Value | undefined;
    const num = name === "" ? undefined : decimalIndex(name);
    if (name === "") {
      if (manual) {
        throw new EvalError(
          "format: cannot switch from manual field specification to automatic field numbering",
        );
      }
      auto = true;
      if (index >= args.length) throw new EvalError("format: tuple index out of range");
      arg = args[index++];
    } else if (num !== undefined) {
      if (auto) {
        throw new EvalError(
          "format: cannot switch from automatic field numbering to manual field specification",
        );
      }
      manual = true;
      if (num >= args.length) throw new EvalError("format: tuple index out of range");
      arg = args[num];
    } else {
      arg = named !== undefined ? named.get(stringTableKey(name)) : kwargs.find(([k]) => k === name)?.[1];
      if (arg === undefined) {
        if (name.includes(".")) {
          throw new EvalError(
            `format: attribute syntax x.y is not supported in replacement fields: ${textBounded(name)}`,
          );
        }
        if (name.includes("[")) {
          throw new EvalError(
            `format: element syntax a[i] is not supported in replacement fields: ${textBounded(name)}`,
          );
        }
        if (name.includes("{")) throw new EvalError("format: nested replacement fields not supported");
        throw new EvalError(`format: keyword ${textBounded(name)} not found`);
      }
    }
    if (spec !== "") {
      throw new EvalError(`format spec features not supported in replacement fields: ${textBounded(spec)}`);
    }
    let text: string;
    if (conv === "s") text = displayString(arg, false, thread);
    else if (conv === "r") text = repr(arg, thread);
    else throw new EvalError(`format: unknown conversion ${reprBounded(conv, thread)}`);
    size += text.length;
    thread.allocate(text.length);
    out.add(text);
  }
  chargeBytes(thread, size);
  return out.finish();
}
