/**
 * The operators of the language: what a unary or binary expression of the syntax tree can name, and what
 * `unary` and `binary` in the operations apply (`and`/`or` short-circuit in the evaluator instead).
 *
 * @module
 */

/** Unary operators. */
export type UnaryOp = "+" | "-" | "~" | "not";

/** Binary operators, including comparisons and `and`/`or`, `in`, `not in`. */
export type BinaryOp =
  | "or"
  | "and"
  | "=="
  | "!="
  | "<"
  | ">"
  | "<="
  | ">="
  | "in"
  | "not in"
  | "|"
  | "^"
  | "&"
  | "<<"
  | ">>"
  | "+"
  | "-"
  | "*"
  | "/"
  | "//"
  | "%";
