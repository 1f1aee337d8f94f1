/**
 * Compiling a resolved file: the entry of the compiler, and the one module that imports every compile_*
 * module, so it is where their {@link CompileRules} are put together.
 *
 * @module
 */
import type { File } from "../syntax/ast.ts";
import { type FrontEndBudget, FrontEndMeter } from "../syntax/meter.ts";
import { Compiler, type CompileRules, type CompileSettings, entryPos } from "./compile.ts";
import { compileCall } from "./compile_call.ts";
import { compileComprehension } from "./compile_comp.ts";
import { compileExpr } from "./compile_expr.ts";
import { compileStmts, returnedExpr, sequence } from "./compile_stmt.ts";
import { compileDeepBody } from "./deep_compile.ts";
import type { FuncCode, Pos, StmtFn } from "./function.ts";

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
  const job = new FileCompilation(file, settings);
  while (job.next());
  return job.finish();
}

/**
 * Compiles a resolved file a top-level statement at a time, so that its caller may stop between two
 * (see `exec.ts`'s CompileJob): call {@link next} until it returns false, then {@link finish}.
 */
export class FileCompilation {
  readonly #file: File;
  readonly #c: Compiler;
  readonly #code: FuncCode;
  readonly #list: StmtFn[] = [];
  #next = 0;
  #nextDeep = 0;

  /** Starts compiling `file`, which must be resolved. */
  constructor(file: File, settings: CompileSettings) {
    const scope = file.scope!;
    const pos: Pos = { line: 1, col: 1 };
    this.#file = file;
    this.#c = new Compiler(settings, RULES, scope, pos);
    this.#code = this.#c.newCode("<toplevel>", pos, scope, file.stmts);
    this.#code.entryPos = entryPos(file.stmts, pos);
  }

  /** Compiles the next top-level statement; false once every one is compiled. */
  next(): boolean {
    const stmts = this.#file.stmts;
    if (this.#next >= stmts.length) return false;
    this.#list.push(...compileStmts(this.#c, [stmts[this.#next++]]));
    return true;
  }

  /** The compiled file, once {@link next} has returned false. */
  finish(): CompiledFile {
    const c = this.#c, code = this.#code, list = this.#list, file = this.#file;
    code.body = sequence(list);
    code.bodySteps = 1 + list.length;
    if (c.settings.sliced === true) code.deepMaker = () => compileDeepBody(c, file.stmts);
    c.meter.flush();
    c.meter = new FrontEndMeter();
    return { toplevel: code, globals: file.globals ?? [], predeclared: c.predeclaredNames };
  }

  /**
   * Sliced code, after {@link finish}: builds the generator form (deep_compile.ts) of the next function
   * that has none yet, as a sliced run would on its first call, but where the compilation can stop
   * between two functions; false once there is none left. The work redoes what compiling paid for, so
   * it charges nothing, but it polls `budget` (the deadline holds through it).
   */
  nextDeepForm(budget: FrontEndBudget | undefined): boolean {
    const c = this.#c, codes = c.codes;
    if (codes === null || this.#nextDeep >= codes.length) return false;
    const code = codes[this.#nextDeep++];
    if (code.deepBody === undefined && code.deepMaker !== null) {
      const plain = c.meter;
      c.meter = new FrontEndMeter(budget, true);
      try {
        code.deepBody = code.deepMaker(code);
      } finally {
        c.meter = plain;
      }
    }
    return true;
  }
}
