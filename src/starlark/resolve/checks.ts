/**
 * The resolver's checks of call arguments: order of positional, named, `*args` and `**kwargs`
 * arguments, repeated keywords and the reference's limit of 255 arguments of each kind. Errors are
 * reported through `errorf` in the reference's order, interleaved with the visit of each argument.
 *
 * @module
 */
import type { Arg, CallExpr, Expr, Position } from "../syntax/ast.ts";

/** Checks the arguments of `e`, calling `visit` on each argument expression in order. */
export function checkCallArgs(
  e: CallExpr,
  errorf: (pos: Position, msg: string) => void,
  visit: (x: Expr) => void,
): void {
  let seenVarargs = false;
  let seenKwargs = false;
  const seenName = new Set<string>();
  let p = 0;
  let n = 0;
  for (const arg of e.args) {
    const pos = argPos(arg);
    switch (arg.kind) {
      case "starstar":
        if (seenKwargs) errorf(pos, "multiple **kwargs not allowed");
        seenKwargs = true;
        visit(arg.value);
        break;
      case "star":
        if (seenKwargs) errorf(pos, "*args may not follow **kwargs");
        else if (seenVarargs) errorf(pos, "multiple *args not allowed");
        seenVarargs = true;
        visit(arg.value);
        break;
      case "named":
        n++;
        if (seenKwargs) errorf(pos, "keyword argument may not follow **kwargs");
        else if (seenVarargs) errorf(pos, "keyword argument may not follow *args");
        if (seenName.has(arg.name)) {
          errorf(pos, `keyword argument "${arg.name}" is repeated`);
        } else {
          seenName.add(arg.name);
        }
        visit(arg.value);
        break;
      case "positional":
        p++;
        if (seenVarargs) errorf(pos, "positional argument may not follow *args");
        else if (seenKwargs) errorf(pos, "positional argument may not follow **kwargs");
        else if (seenName.size > 0) errorf(pos, "positional argument may not follow named");
        visit(arg.value);
        break;
    }
  }
  if (p >= 256) errorf(e, `${p} positional arguments in call, limit is 255`);
  if (n >= 256) errorf(e, `${n} keyword arguments in call, limit is 255`);
}

function argPos(a: Arg): Position {
  switch (a.kind) {
    case "named":
    case "star":
    case "starstar":
      return { line: a.line, col: a.col };
    default:
      return a.value;
  }
}
