/**
 * Static well-formedness checks that the reference performs in its resolver but that depend only on the
 * shape of one node: call argument order, parameter order, and assignment targets.
 *
 * The parser runs them as it builds each node (unless told not to), so a bad program is rejected by
 * `parseFile` alone. A resolver that wants the reference's exact error order in files with several errors
 * can parse with `staticChecks: false` and call these functions at the points where the reference's
 * resolver would report them.
 *
 * @module
 */

import { StarlarkSyntaxError, toJSString } from "../values/mod.ts";
import type { CallExpr, Expr, Param } from "./ast.ts";

/**
 * Rejects misordered or repeated call arguments, and calls with more than 255 positional or keyword
 * arguments, with the reference's messages and positions.
 * @throws {StarlarkSyntaxError}
 */
export function checkCallArgs(filename: string, call: CallExpr): void {
  let seenVarargs = false, seenKwargs = false;
  let names: Set<string> | undefined;
  let npos = 0, nnamed = 0;
  const fail = (line: number, col: number, msg: string): never => {
    throw new StarlarkSyntaxError(filename, line, col, msg);
  };
  for (const arg of call.args) {
    switch (arg.kind) {
      case "starstar":
        if (seenKwargs) fail(arg.line, arg.col, "multiple **kwargs not allowed");
        seenKwargs = true;
        break;
      case "star":
        if (seenKwargs) fail(arg.line, arg.col, "*args may not follow **kwargs");
        if (seenVarargs) fail(arg.line, arg.col, "multiple *args not allowed");
        seenVarargs = true;
        break;
      case "named":
        nnamed++;
        if (seenKwargs) fail(arg.line, arg.col, "keyword argument may not follow **kwargs");
        if (seenVarargs) fail(arg.line, arg.col, "keyword argument may not follow *args");
        names ??= new Set();
        if (names.has(arg.name)) {
          fail(arg.line, arg.col, `keyword argument ${JSON.stringify(toJSString(arg.name))} is repeated`);
        }
        names.add(arg.name);
        break;
      default: {
        npos++;
        const { line, col } = arg.value;
        if (seenVarargs) fail(line, col, "positional argument may not follow *args");
        if (seenKwargs) fail(line, col, "positional argument may not follow **kwargs");
        if (names !== undefined) fail(line, col, "positional argument may not follow named");
      }
    }
  }
  if (npos >= 256) fail(call.line, call.col, `${npos} positional arguments in call, limit is 255`);
  if (nnamed >= 256) fail(call.line, call.col, `${nnamed} keyword arguments in call, limit is 255`);
}

/**
 * Rejects misordered, repeated or malformed parameters (`def`/`lambda`) with the reference's messages.
 * @throws {StarlarkSyntaxError}
 */
export function checkParams(filename: string, params: Param[]): void {
  const fail = (line: number, col: number, msg: string): never => {
    throw new StarlarkSyntaxError(filename, line, col, msg);
  };
  const seen = new Set<string>();
  let seenOptional = false;
  let star: Param | undefined;
  let starStar: string | undefined;
  let kwonly = 0;
  for (const p of params) {
    switch (p.kind) {
      case "normal":
        if (starStar !== undefined) {
          fail(p.name.line, p.name.col, `required parameter may not follow **${toJSString(starStar)}`);
        }
        if (star !== undefined) kwonly++;
        else if (seenOptional) fail(p.name.line, p.name.col, "required parameter may not follow optional");
        if (seen.has(p.name.name)) {
          fail(p.name.line, p.name.col, `duplicate parameter: ${toJSString(p.name.name)}`);
        }
        seen.add(p.name.name);
        break;
      case "default":
        if (starStar !== undefined) {
          fail(p.eqLine, p.eqCol, `optional parameter may not follow **${toJSString(starStar)}`);
        }
        if (star !== undefined) kwonly++;
        if (seen.has(p.name.name)) fail(p.eqLine, p.eqCol, `duplicate parameter: ${toJSString(p.name.name)}`);
        seen.add(p.name.name);
        seenOptional = true;
        break;
      case "star":
        if (starStar !== undefined) {
          fail(p.line, p.col, `* parameter may not follow **${toJSString(starStar)}`);
        }
        if (star !== undefined) fail(p.line, p.col, "multiple * parameters not allowed");
        star = p;
        break;
      case "starstar":
        if (starStar !== undefined) fail(p.line, p.col, "multiple ** parameters not allowed");
        starStar = p.name.name;
    }
  }
  // As in the reference, *args and **kwargs are bound (and so checked for duplicates) last.
  if (star !== undefined && star.kind === "star") {
    if (star.name !== undefined) {
      if (seen.has(star.name.name)) {
        fail(star.name.line, star.name.col, `duplicate parameter: ${toJSString(star.name.name)}`);
      }
      seen.add(star.name.name);
    } else if (kwonly === 0) {
      fail(star.line, star.col, "bare * must be followed by keyword-only parameters");
    }
  }
  for (const p of params) {
    if (p.kind === "starstar" && p.name.name === starStar) {
      if (seen.has(starStar)) fail(p.name.line, p.name.col, `duplicate parameter: ${toJSString(starStar)}`);
      break;
    }
  }
}

/**
 * Rejects an expression that cannot be assigned to (`f() = 1`, `(a, b) += 1`, ...).
 * `augmented` is true for `+=` and friends, which accept neither tuples nor lists.
 * @throws {StarlarkSyntaxError}
 */
export function checkAssign(filename: string, lhs: Expr, augmented: boolean): void {
  switch (lhs.kind) {
    case "Ident":
    case "IndexExpr":
    case "DotExpr":
      return;
    case "TupleExpr":
    case "ListExpr":
      if (augmented) {
        const what = lhs.kind === "TupleExpr" ? "tuple" : "list";
        throw new StarlarkSyntaxError(
          filename,
          lhs.line,
          lhs.col,
          `can't use ${what} expression in augmented assignment`,
        );
      }
      for (const e of lhs.list) checkAssign(filename, e, augmented);
      return;
    case "ParenExpr":
      return checkAssign(filename, lhs.x, augmented);
    default:
      throw new StarlarkSyntaxError(filename, lhs.line, lhs.col, `can't assign to ${lhs.kind.toLowerCase()}`);
  }
}
