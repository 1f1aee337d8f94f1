/**
 * The `%` string-formatting operator (`"%s: %d" % (name, n)`), exactly as the reference implementation:
 * conversions `%s %r %d %i %o %x %X %e %f %g %E %F %G %c %%` and `%(key)s` with a mapping. Flags, widths
 * and precisions are not supported (`unknown conversion %5`).
 *
 * @module
 */
import { formatFloatConv } from "./float_format.ts";
import { intToFloat, numberToInt } from "./int.ts";
import { chargeRadixText, intToDecimal } from "./int_cost.ts";
import { repr } from "./ops_repr.ts";
import { intBounded, QUOTE_LIMIT, textBounded } from "./quote_bounded.ts";
import { TextBuilder } from "./text_builder.ts";
import { decodeRune, encodeRune } from "./utf8.ts";
import { Dict, EvalError, Float, Tuple, typeName } from "./value.ts";
import type { Thread, Value } from "./value.ts";

function fail(msg: string): never {
  throw new EvalError(msg);
}

/** Conversions (and `%%`) appended to a plain string before it goes to the builder (and is charged). */
const CONVERSIONS_PER_PIECE = 256;

/**
 * `format % x`. A tuple supplies the positional arguments; any other value is a single argument. A dict
 * may be used with `%(key)s`. With a thread, the result's memory is charged as it grows (before any
 * join) and a long build polls between chunks of pieces.
 * @throws {EvalError} with the reference's messages (`not enough arguments for format string`, ...).
 */
export function interpolate(format: string, x: Value, thread?: Thread): string {
  // `+=` is fastest for the usual short format, but a million conversions would make a rope of a million
  // nodes, flattened in one unpolled call at the first use of the result: every few hundred conversions
  // the text so far is charged and moves to a builder, which joins its pieces in polled chunks.
  let out = "";
  let built: TextBuilder | undefined;
  let pieces = 0;
  let index = 0;
  const nargs = x instanceof Tuple ? x.elems.length : 1;
  let pos = 0;
  const n = format.length;
  for (;;) {
    const i = format.indexOf("%", pos);
    if (i < 0) {
      out += format.slice(pos);
      break;
    }
    if (i > pos) out += format.slice(pos, i);
    pos = i + 1;
    if (++pieces === CONVERSIONS_PER_PIECE) {
      pieces = 0;
      if (thread !== undefined) {
        thread.allocate(out.length);
        thread.poll();
      }
      (built ??= new TextBuilder(thread)).add(out);
      out = "";
    }
    if (pos < n && format.charCodeAt(pos) === 37) {
      out += "%";
      pos++;
      continue;
    }
    let arg: Value;
    if (pos < n && format.charCodeAt(pos) === 40) {
      // %(key)s
      const j = format.indexOf(")", pos + 1);
      if (j < 0) fail("incomplete format key");
      const key = format.slice(pos + 1, j);
      if (!(x instanceof Dict)) fail("format requires a mapping");
      const v = x.get(key);
      if (v === undefined) fail(`key not found: ${textBounded(key, QUOTE_LIMIT, thread)}`);
      arg = v;
      pos = j + 1;
    } else {
      if (index >= nargs) fail("not enough arguments for format string");
      arg = x instanceof Tuple ? x.elems[index] : x;
    }
    if (pos >= n) fail("incomplete format");
    const c = format[pos];
    switch (c) {
      case "s":
        out += typeof arg === "string" ? arg : repr(arg, thread);
        break;
      case "r":
        out += repr(arg, thread);
        break;
      case "d":
      case "i":
      case "o":
      case "x":
      case "X": {
        let v;
        try {
          v = numberToInt(arg);
        } catch (e) {
          fail(`%${c} format requires integer: ${(e as Error).message}`);
        }
        if (c === "d" || c === "i") {
          out += intToDecimal(v, thread);
          break;
        }
        if (thread !== undefined) chargeRadixText(thread, v);
        out += c === "o" ? v.toString(8) : c === "x" ? v.toString(16) : v.toString(16).toUpperCase();
        break;
      }
      case "e":
      case "f":
      case "g":
      case "E":
      case "F":
      case "G": {
        let f: number;
        if (arg instanceof Float) f = arg.value;
        else if (typeof arg === "number" || typeof arg === "bigint") f = bigToFloat(arg);
        else fail(`%${c} format requires float, not ${typeName(arg)}`);
        out += formatFloatConv(f, c);
        break;
      }
      case "c":
        out += formatChar(arg);
        break;
      case "%":
        out += "%";
        break;
      default:
        // The reference prints the offending byte as a code point.
        fail(`unknown conversion %${encodeRune(format.charCodeAt(pos))}`);
    }
    pos++;
    index++;
  }
  if (index < nargs && !(x instanceof Dict)) fail("too many arguments for format string");
  thread?.allocate(out.length);
  if (built === undefined) return out;
  built.add(out);
  return built.finish();
}

/** `AsFloat` of an int: unlike arithmetic, `%` formatting accepts huge ints as ±inf. */
function bigToFloat(v: number | bigint): number {
  if (typeof v === "number") return v;
  try {
    return intToFloat(v);
  } catch {
    return v > 0n ? Infinity : -Infinity;
  }
}

function formatChar(arg: Value): string {
  if (typeof arg === "number" || typeof arg === "bigint") {
    if (typeof arg === "bigint" || arg < -2147483648 || arg > 2147483647 || arg < 0 || arg > 0x10ffff) {
      fail(`%c format requires a valid Unicode code point, got ${intBounded(arg)}`);
    }
    return encodeRune(arg);
  }
  if (typeof arg === "string") {
    if (arg.length === 0) fail("%c format requires a single-character string");
    const p = decodeRune(arg, 0);
    if ((p & 7) !== arg.length) fail("%c format requires a single-character string");
    return encodeRune((p - (p & 7)) / 8);
  }
  fail(`%c format requires int or single-character string, not ${typeName(arg)}`);
}
