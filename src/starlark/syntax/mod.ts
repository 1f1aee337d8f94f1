/**
 * Starlark syntax: scanner, parser and syntax tree.
 *
 * `parseFile` turns source text into a {@link File} tree (positions count Unicode code points, like the
 * reference implementation); `parseExpr` parses a single expression.
 *
 * @module
 */

export * from "./ast.ts";
export { parseExpr, parseFile, type ParseOptions } from "./parser.ts";
export { checkAssign, checkCallArgs, checkParams } from "./check.ts";
export { Scanner } from "./scanner.ts";
export { TOKEN_NAMES, tokenString } from "./tokens.ts";
