/**
 * The compiler: turns a resolved syntax tree into a tree of JS closures (one per node, built once), which
 * V8 then optimizes like ordinary code. Expressions compile to `(frame) => Value`, statements to
 * `(frame) => completion code`.
 *
 * The compiler tracks a "current position" exactly where the reference's bytecode compiler does, so that
 * every runtime error is reported at the same line and column as the reference.
 *
 * This module holds the state every compile_* module is handed (the {@link Compiler}) and the
 * {@link CompileRules} they reach each other through: expressions contain calls and comprehensions,
 * which contain expressions, so one side of each recursion is called through the rules rather than
 * imported back. `compile_file.ts` supplies the rules and compiles whole files.
 *
 * @module
 */
import { MAX_NESTING } from "../resolve/resolve.ts";
import type {
  CallExpr,
  Comprehension,
  DefStmt,
  Expr,
  FunctionScope,
  LambdaExpr,
  Param,
  Position,
  Stmt,
} from "../syntax/ast.ts";
import { FrontEndMeter } from "../syntax/meter.ts";
import { StarlarkSyntaxError, type Value } from "../values/mod.ts";
import type { DeepStmt } from "./deep.ts";
import {
  type Cell,
  type DefaultValue,
  type ExprFn,
  F_FREE,
  F_LOCALS,
  F_MODULE,
  type Frame,
  FuncCode,
  MANDATORY,
  type ModuleInstance,
  type Pos,
  StarFunction,
  type StmtFn,
} from "./function.ts";

/** Static settings of one compilation. */
export interface CompileSettings {
  /** File name for positions. */
  filename: string;
  /** Whether recursion is allowed in the compiled functions. */
  recursion: boolean;
  /**
   * Whether the code must be able to pause (eval/sliced.ts): every function and the top level get a
   * generator form in which loops and comprehensions run as generators too, so a run started with
   * `startCall` returns to its host between slices of its time.
   */
  sliced?: boolean;
  /** Values of universal names (constant-folded into the code). */
  universe: ReadonlyMap<string, Value>;
  /** Counts the compiler's work (a unit per statement and expression compiled), charging its budget. */
  meter?: FrontEndMeter;
}

/**
 * The compile functions the compile_* modules call across module lines without importing each other
 * back (`compile_file.ts` fills them in).
 */
export interface CompileRules {
  /** Compiles an expression (`compile_expr.ts`). */
  readonly expr: (c: Compiler, e: Expr) => ExprFn;
  /** Compiles a call, including method calls (`compile_call.ts`). */
  readonly call: (c: Compiler, e: CallExpr) => ExprFn;
  /** Compiles a list or dict comprehension (`compile_comp.ts`). */
  readonly comprehension: (c: Compiler, e: Comprehension) => ExprFn;
  /** Compiles statements, dropping those that do nothing (`compile_stmt.ts`). */
  readonly stmts: (c: Compiler, stmts: readonly Stmt[]) => StmtFn[];
  /** Joins compiled statements into one that runs them in order until one completes abnormally. */
  readonly sequence: (list: StmtFn[]) => StmtFn;
  /** The returned expression of a compiled `return` statement, if it is one. */
  readonly returnedExpr: (s: StmtFn) => ExprFn | undefined;
  /** The generator form of a function body, for recursion past the JS stack (`deep_compile.ts`). */
  readonly deepBody: (c: Compiler, body: readonly Stmt[]) => DeepStmt | null;
}

/** A hole: what compiling the hole's node yields, and the position the compiler had after that node. */
export interface Hole {
  /** Reads the value of the group below. */
  readonly fn: ExprFn;
  /** The compiler's current position right after the node was compiled (the group below's last). */
  readonly pos: Pos;
}

/** Mutable compiler state shared by the expression and statement compilers. */
export class Compiler {
  /** Settings. */
  readonly settings: CompileSettings;
  /** How the compile_* modules reach each other. */
  readonly rules: CompileRules;
  /** Current position, updated where the reference's compiler updates its own. */
  pos: Pos;
  /** Scope of the function being compiled. */
  scope: FunctionScope;
  /** Predeclared names used by the program, by slot. */
  readonly predeclaredNames: string[] = [];
  private readonly predeclaredSlots = new Map<string, number>();
  private depth = 0;
  /**
   * Counts the work of compiling. Once the file is compiled it only counts: the generator forms made
   * later, while a program runs (deep_compile.ts), redo work the compilation already paid for.
   */
  meter: FrontEndMeter;
  /** Nodes standing for the value of a group below, while a long chain's group is compiled (compile_chain.ts). */
  readonly holes: Map<Expr, Hole> = new Map();
  /** With recursion on: the closure compiled for each expression, reused by the deep compiler (deep_compile.ts). */
  readonly fastExprs: Map<Expr, ExprFn> | null;
  /** With recursion on: the closure compiled for each statement (undefined for those that do nothing). */
  readonly fastStmts: Map<Stmt, StmtFn | undefined> | null;
  /** Sliced code: every function's code, so that their generator forms can be built ahead (exec.ts). */
  readonly codes: FuncCode[] | null;

  /** Creates a compiler positioned at `pos` for code with scope `scope`. */
  constructor(settings: CompileSettings, rules: CompileRules, scope: FunctionScope, pos: Pos) {
    this.settings = settings;
    this.rules = rules;
    this.scope = scope;
    this.pos = pos;
    this.meter = settings.meter ?? new FrontEndMeter();
    const deep = settings.recursion || settings.sliced === true;
    this.fastExprs = deep ? new Map() : null;
    this.fastStmts = deep ? new Map() : null;
    this.codes = settings.sliced === true ? [] : null;
  }

  /** Records `p` as the current position. */
  setPos(p: Position): void {
    this.pos = { line: p.line, col: p.col };
  }

  /** The predeclared slot of `name`. */
  predeclaredSlot(name: string): number {
    let i = this.predeclaredSlots.get(name);
    if (i === undefined) {
      i = this.predeclaredNames.length;
      this.predeclaredNames.push(name);
      this.predeclaredSlots.set(name, i);
    }
    return i;
  }

  /** Guards the recursion of the compiler against absurdly nested input. */
  enter(p: Position): void {
    this.meter.tick();
    if (++this.depth > MAX_NESTING) {
      throw new StarlarkSyntaxError(
        this.settings.filename,
        p.line,
        p.col,
        `program too deeply nested (more than ${MAX_NESTING} levels)`,
      );
    }
  }

  /** Ends an {@link enter}. */
  leave(): void {
    this.depth--;
  }

  /**
   * Compiles a `def` or `lambda`: returns a closure that evaluates the defaults and captures the free
   * variables, creating the function value.
   */
  compileFunction(node: DefStmt | LambdaExpr, name: string, body: Stmt[]): ExprFn {
    const fpos: Pos = { line: node.line, col: node.col };
    this.setPos(fpos);
    const params: Param[] = node.params;
    const defaults: (ExprFn | typeof MANDATORY)[] = [];
    let seenStar = false;
    for (const p of params) {
      if (p.kind === "default") defaults.push(this.rules.expr(this, p.default));
      else if (p.kind === "star" || p.kind === "starstar") seenStar = true;
      else if (seenStar) defaults.push(MANDATORY);
    }
    const scope = node.scope!;
    const code = this.newCode(name, fpos, scope, body);
    // Compile the body with this compiler's state switched to the inner function.
    const outerScope = this.scope, outerPos = this.pos;
    this.scope = scope;
    this.pos = fpos;
    code.entryPos = entryPos(body, fpos);
    const list = this.rules.stmts(this, body);
    code.body = this.rules.sequence(list);
    code.bodySteps = 1 + list.length;
    if (list.length === 1) code.expr = this.rules.returnedExpr(list[0]) ?? null;
    if (this.fastStmts !== null) code.deepMaker = () => this.rules.deepBody(this, body);
    this.scope = outerScope;
    this.pos = outerPos;

    const free = scope.freevars.map((b) => ({ fromCell: b.scope === "cell", index: b.index }));
    const nd = defaults.length;
    const nf = free.length;
    return (fr: Frame) => {
      const dv: DefaultValue[] = new Array(nd);
      for (let i = 0; i < nd; i++) {
        const d = defaults[i];
        dv[i] = d === MANDATORY ? MANDATORY : d(fr);
      }
      const fv: Cell[] = new Array(nf);
      for (let i = 0; i < nf; i++) {
        const f = free[i];
        fv[i] = f.fromCell ? fr[F_LOCALS + f.index] as Cell : (fr[F_FREE] as Cell[])[f.index];
      }
      return new StarFunction(code, fr[F_MODULE] as ModuleInstance, dv, fv);
    };
  }

  /** Creates the code object of a function with the given scope. */
  newCode(name: string, pos: Pos, scope: FunctionScope, body: readonly Stmt[]): FuncCode {
    const code = new FuncCode({
      name,
      filename: this.settings.filename,
      pos,
      paramNames: scope.locals.slice(0, scope.numParams).map((id) => id.name),
      numKwonly: scope.numKwonlyParams,
      hasVarargs: scope.hasVarargs,
      hasKwargs: scope.hasKwargs,
      cellSlots: scope.cells.map((i) => F_LOCALS + i),
      numLocals: scope.locals.length,
      recursion: this.settings.recursion,
      stmts: body,
    });
    this.codes?.push(code);
    return code;
  }
}

// ---------------------------------------------------------------------------
// Entry positions: where the reference's first instruction of a function is located. Errors raised
// before the body runs (argument binding, recursion) are reported there.

/** Where the reference's first instruction of a body is: the first statement that has one, else `def`. */
export function entryPos(body: readonly Stmt[], def: Pos): Pos {
  for (const s of body) {
    const p = firstInStmt(s, def);
    if (p !== undefined) return p;
  }
  return def;
}

/** Position of the first instruction of `s`, `def` if it has no position of its own, undefined if empty. */
function firstInStmt(s: Stmt, def: Pos): Pos | undefined {
  switch (s.kind) {
    case "ExprStmt":
      return s.x.kind === "Literal" ? undefined : firstInExpr(s.x, def);
    case "BranchStmt":
      return s.token === "pass" ? undefined : def;
    case "IfStmt":
    case "WhileStmt":
      return firstInExpr(s.cond, def);
    case "AssignStmt":
      if (s.op === "=") return firstInExpr(s.rhs, def);
      return firstInExpr(unparen(s.lhs).kind === "Ident" ? unparen(s.lhs) : targetBase(s.lhs), def);
    case "DefStmt":
      return { line: s.line, col: s.col };
    case "ForStmt":
      return firstInExpr(s.x, def);
    case "ReturnStmt":
      return s.result === undefined ? def : firstInExpr(s.result, def);
    case "LoadStmt":
      return def;
  }
}

function unparen(e: Expr): Expr {
  while (e.kind === "ParenExpr") e = e.x;
  return e;
}

function targetBase(e: Expr): Expr {
  const u = unparen(e);
  return u.kind === "IndexExpr" || u.kind === "DotExpr" ? u.x : u;
}

function firstInExpr(e: Expr, def: Pos): Pos {
  for (;;) {
    switch (e.kind) {
      case "ParenExpr":
      case "UnaryExpr":
      case "IndexExpr":
      case "DotExpr":
        e = e.x;
        continue;
      case "BinaryExpr":
        e = e.x;
        continue;
      case "CondExpr":
        e = e.cond;
        continue;
      case "CallExpr":
        e = e.fn;
        continue;
      case "ListExpr":
      case "TupleExpr":
        if (e.list.length === 0) return def;
        e = e.list[0];
        continue;
      case "Ident":
        return e.binding?.scope === "universal" ? def : { line: e.line, col: e.col };
      case "SliceExpr":
        return { line: e.lbrackLine, col: e.lbrackCol };
      case "LambdaExpr":
        return { line: e.line, col: e.col };
      default: // literals, dict displays, comprehensions: no position of their own
        return def;
    }
  }
}
