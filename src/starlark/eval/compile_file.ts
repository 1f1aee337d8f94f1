/**
 * Compiling a resolved file: the entry of the compiler, and the one module that imports every compile_*
 * module, so it is where their {@link CompileRules} are put together.
 *
 * @module
 */
import type { File } from "../syntax/ast.ts";
import { Compiler, type CompileRules, type CompileSettings, entryPos } from "./compile.ts";
import { compileCall } from "./compile_call.ts";
import { compileComprehension } from "./compile_comp.ts";
import { compileExpr } from "./compile_expr.ts";
import { compileStmts, returnedExpr, sequence } from "./compile_stmt.ts";
import { compileDeepBody } from "./deep_compile.ts";
import type { FuncCode, Pos } from "./function.ts";

const RULES: CompileRules = Object.freeze({
  expr: compileExpr,
  call: compileCall,
  comprehension: compileComprehension,
  stmts: compileStmts,
  sequence,
  returnedExpr,
  deepBody: compileDeepBody,
});

/** The result of compiling a file. */
export interface CompiledFile {
  /** Code of the top level. */
  toplevel: FuncCode;
  /** Global names by slot. */
  globals: string[];
  /** Predeclared names used, by slot. */
  predeclared: string[];
}

/** Compiles a resolved file. */
export function compileFile(file: File, settings: CompileSettings): CompiledFile {
  const scope = file.scope!;
  const pos: Pos = { line: 1, col: 1 };
  const c = new Compiler(settings, RULES, scope, pos);
  const code = c.newCode("<toplevel>", pos, scope, file.stmts);
  code.entryPos = entryPos(file.stmts, pos);
  const list = compileStmts(c, file.stmts);
  code.body = sequence(list);
  code.bodySteps = 1 + list.length;
  if (settings.sliced === true) code.deepMaker = () => compileDeepBody(c, file.stmts);
  return { toplevel: code, globals: file.globals ?? [], predeclared: c.predeclaredNames };
}
