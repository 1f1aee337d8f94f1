/**
 * The resolver: binds every identifier of a parsed file to a scope and slot, computes the scope of each
 * function, and reports static errors (undefined names, reassigned globals, misplaced statements...) with
 * the reference implementation's messages and positions.
 *
 * Scoping follows the spec: a name assigned anywhere in a function is local to the whole function; a
 * name assigned at top level is global to the whole module (uses may precede the assignment); `load`
 * bindings and top-level comprehension variables are file-local. Uses that are not local are resolved
 * only at the end of the file, walking nested blocks bottom-up, so that a use inside a function may refer
 * to a global defined later and so that each function captures (as free variables) the locals of
 * enclosing functions it uses; captured locals become cells.
 *
 * @module
 */
import {
  type Binding,
  type Comprehension,
  type DefStmt,
  elifOf,
  type Expr,
  type File,
  type Ident,
  type IfStmt,
  type LambdaExpr,
  leftOperand,
  type Param,
  type Position,
  type Stmt,
} from "../syntax/ast.ts";
import { type Dialect, nearest, StarlarkSyntaxError } from "../values/mod.ts";
import { FrontEndMeter } from "../syntax/meter.ts";
import { checkCallArgs } from "./checks.ts";
import { type Block, type FnInfo, lookupLocal, newScope, type RBinding, type Use } from "./scope.ts";

/** What the resolver needs to know about the environment of the file. */
export interface ResolveOptions {
  /** Dialect options (`set`, `while`, `topLevelControl`, `globalReassign` and `loadBindsGlobally`). */
  dialect: Readonly<Dialect>;
  /** Whether `name` is predeclared for this module (predeclared names shadow universal ones). */
  isPredeclared(name: string): boolean;
  /** Whether `name` is a universal built-in (`None`, `len`...). */
  isUniversal(name: string): boolean;
  /** Counts the resolver's work (a unit per statement, expression and name looked up) for its budget. */
  meter?: FrontEndMeter;
}

/** One resolver error. */
export interface ResolveError extends Position {
  /** The bare message. */
  msg: string;
}

/** Thrown by {@link resolveFile}: the first error as a syntax error, with all errors in `errors`. */
export class ResolveErrors extends StarlarkSyntaxError {
  /** Every error found, in the order the reference reports them (the first is this error). */
  readonly errors: ResolveError[];
  /** Creates the error from a non-empty list. */
  constructor(filename: string, errors: ResolveError[]) {
    super(filename, errors[0].line, errors[0].col, errors[0].msg);
    this.errors = errors;
  }
}

/**
 * Maximum nesting of expressions and statements the resolver and the compiler accept. Both recurse over
 * the tree, so this bounds their JS stack use; real programs stay far below it.
 */
export const MAX_NESTING = 2000;

/**
 * Resolves `file` in place: sets `binding` on every identifier, `scope` on every function, lambda and
 * the file, and `file.globals`.
 *
 * @throws {ResolveErrors} (a {@link StarlarkSyntaxError}) describing the first error, when there is any.
 */
export function resolveFile(file: File, options: ResolveOptions): void {
  const r = new Resolver(file.filename, options);
  r.run(file);
}

/**
 * Resolves a file a top-level statement at a time (see `eval/exec.ts`'s CompileJob): give it every
 * statement in order, then call {@link finish}; the file ends up as {@link resolveFile} leaves it.
 */
export class FileResolver {
  readonly #r: Resolver;

  /** Starts resolving a file named `filename`. */
  constructor(filename: string, options: ResolveOptions) {
    this.#r = new Resolver(filename, options);
  }

  /** Resolves the next top-level statement. */
  statement(s: Stmt): void {
    this.#r.topLevel(s);
  }

  /**
   * Resolves what needed the whole file and sets its scope and globals.
   * @throws {ResolveErrors} describing the first error, when there is any.
   */
  finish(file: File): void {
    this.#r.finish(file);
  }
}

class Resolver {
  private readonly filename: string;
  private readonly opts: ResolveOptions;
  private readonly dialect: Readonly<Dialect>;
  private readonly fileBlock: Block;
  private env: Block;
  private readonly fileInfo: FnInfo;
  private readonly globals = new Map<string, RBinding>();
  private readonly globalOrder: RBinding[] = [];
  private readonly predeclared = new Map<string, RBinding>();
  private loops = 0;
  private ifstmts = 0;
  private depth = 0;
  private readonly errors: ResolveError[] = [];
  /** Function scopes whose cell lists are computed once all free variables are known. */
  private readonly pendingScopes: FnInfo[] = [];
  /** The identifier that first bound each global or local binding (for "declared at" messages). */
  private readonly firstOf = new Map<Binding, Ident>();
  private readonly meter: FrontEndMeter;

  constructor(filename: string, opts: ResolveOptions) {
    this.filename = filename;
    this.opts = opts;
    this.dialect = opts.dialect;
    this.fileInfo = { scope: newScope(), bindings: [] };
    this.fileBlock = {
      parent: null,
      fn: null,
      isComp: false,
      bindings: new Map(),
      children: [],
      uses: [],
    };
    this.env = this.fileBlock;
    this.meter = opts.meter ?? new FrontEndMeter();
  }

  run(file: File): void {
    this.stmts(file.stmts);
    this.finish(file);
  }

  /** Resolves one top-level statement (in file order). */
  topLevel(s: Stmt): void {
    this.stmt(s);
  }

  /** Resolves what waits for the whole file (uses of names bound later, scopes) once its statements are. */
  finish(file: File): void {
    this.resolveLocalUses(this.fileBlock);
    this.resolveNonLocalUses(this.fileBlock);
    this.finishScope(this.fileInfo);
    for (const info of this.pendingScopes) this.finishScope(info);
    file.scope = this.fileInfo.scope;
    file.globals = this.globalOrder.map((b) => b.name);
    this.meter.flush();
    if (this.errors.length > 0) throw new ResolveErrors(this.filename, this.errors);
  }

  private errorf(pos: Position, msg: string): void {
    this.errors.push({ line: pos.line, col: pos.col, msg });
  }

  private posString(p: Position): string {
    return `${this.filename}:${p.line}:${p.col}`;
  }

  private enter(pos: Position): void {
    this.meter.tick();
    if (++this.depth > MAX_NESTING) {
      throw new StarlarkSyntaxError(
        this.filename,
        pos.line,
        pos.col,
        `program too deeply nested (more than ${MAX_NESTING} levels)`,
      );
    }
  }

  /** The innermost function block, or the file block. */
  private container(): Block {
    for (let b: Block = this.env;; b = b.parent!) {
      if (b.fn !== null || b === this.fileBlock) return b;
    }
  }

  private containerInfo(): FnInfo {
    return this.container().fn ?? this.fileInfo;
  }

  private inFunction(): boolean {
    return this.container().fn !== null;
  }

  private push(b: Block): void {
    this.env.children.push(b);
    b.parent = this.env;
    this.env = b;
  }

  private pop(): void {
    this.env = this.env.parent!;
  }

  /** Binds `id` in the current block; returns whether a binding already existed. */
  private bind(id: Ident): boolean {
    if (this.env === this.fileBlock) {
      let b = this.fileBlock.bindings.get(id.name);
      let existed = b !== undefined;
      if (b === undefined) {
        b = this.globals.get(id.name);
        existed = b !== undefined;
        if (b === undefined) {
          b = { scope: "global", index: this.globalOrder.length, name: id.name };
          this.firstOf.set(b, id);
          this.globals.set(id.name, b);
          this.globalOrder.push(b);
        }
      }
      if (existed && !this.dialect.globalReassign) {
        this.errorf(
          id,
          `cannot reassign ${b.scope} ${id.name} declared at ${this.posString(this.firstOf.get(b) ?? id)}`,
        );
      }
      id.binding = b;
      return existed;
    }
    return this.bindLocal(id);
  }

  private bindLocal(id: Ident): boolean {
    const existed = this.env.bindings.has(id.name);
    if (!existed) {
      const info = this.containerInfo();
      const b: RBinding = { scope: "local", index: info.scope.locals.length, name: id.name };
      this.firstOf.set(b, id);
      this.env.bindings.set(id.name, b);
      info.scope.locals.push(id);
      info.bindings.push(b);
    }
    this.use(id);
    return existed;
  }

  private use(id: Ident): void {
    const u: Use = { id, env: this.env };
    // With global reassignment, top-level uses bind eagerly (Python-like legacy semantics).
    if (this.dialect.globalReassign && this.env === this.fileBlock) {
      this.useToplevel(u);
      return;
    }
    this.container().uses.push(u);
  }

  private useToplevel(u: Use): RBinding {
    const id = u.id;
    const name = id.name;
    let b = this.fileBlock.bindings.get(name) ?? this.globals.get(name) ?? this.predeclared.get(name);
    if (b === undefined) {
      if (this.opts.isPredeclared(name)) {
        b = { scope: "predeclared", index: 0, name };
        this.predeclared.set(name, b);
      } else if (this.opts.isUniversal(name)) {
        if (!this.dialect.set && name === "set") {
          this.errorf(id, "this Starlark dialect does not support sets");
        }
        b = { scope: "universal", index: 0, name };
        this.predeclared.set(name, b);
      } else {
        b = { scope: "undefined", index: 0, name };
        const hint = this.spellcheck(u);
        this.errorf(id, `undefined: ${name}${hint === "" ? "" : ` (did you mean ${hint}?)`}`);
      }
    }
    id.binding = b;
    return b;
  }

  private spellcheck(u: Use): string {
    const names: string[] = [];
    for (let b: Block | null = u.env; b !== null; b = b.parent) {
      for (const name of b.bindings.keys()) names.push(name);
    }
    for (const b of this.globalOrder) names.push(b.name);
    // Every undefined name is compared with every name in sight (sorted, folded, an edit distance each):
    // a program of many of each pays for it, before the work.
    let work = Math.ceil(names.length * Math.log2(names.length + 1));
    for (const n of names) work += 8 + (n.length >> 2);
    this.meter.work(work, 16 * names.length);
    names.sort();
    return nearest(u.id.name, names);
  }

  private resolveLocalUses(b: Block): void {
    const unresolved: Use[] = [];
    for (const u of b.uses) {
      const bind = lookupLocal(u);
      if (bind !== undefined && (bind.scope === "local" || bind.scope === "cell")) {
        u.id.binding = bind;
      } else {
        unresolved.push(u);
      }
    }
    b.uses = unresolved;
  }

  private resolveNonLocalUses(b: Block): void {
    for (const child of b.children) this.resolveNonLocalUses(child);
    this.meter.tick(b.uses.length);
    for (const u of b.uses) u.id.binding = this.lookupLexical(u, u.env);
  }

  private lookupLexical(u: Use, env: Block): RBinding {
    if (env === this.fileBlock) return this.useToplevel(u);
    let b = env.bindings.get(u.id.name);
    if (b === undefined) {
      b = this.lookupLexical(u, env.parent!);
      if (env.fn !== null && (b.scope === "local" || b.scope === "free" || b.scope === "cell")) {
        // Found in an enclosing function: capture it through a cell.
        if (b.scope === "local") b.scope = "cell";
        const index = env.fn.scope.freevars.length;
        env.fn.scope.freevars.push(b);
        b = { scope: "free", index, name: b.name };
      }
      env.bindings.set(u.id.name, b); // memoize: one free variable per name
    }
    return b;
  }

  private finishScope(info: FnInfo): void {
    const cells: number[] = [];
    info.bindings.forEach((b, i) => {
      if (b.scope === "cell") cells.push(i);
    });
    info.scope.cells = cells;
  }

  // -------------------------------------------------------------------------
  // Statements

  private stmts(list: Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  private stmt(s: Stmt): void {
    this.enter(s);
    try {
      this.stmtInner(s);
    } finally {
      this.depth--;
    }
  }

  private stmtInner(s: Stmt): void {
    const topLevelOK = this.dialect.topLevelControl;
    switch (s.kind) {
      case "ExprStmt":
        this.expr(s.x);
        break;
      case "BranchStmt":
        if (this.loops === 0 && (s.token === "break" || s.token === "continue")) {
          this.errorf(s, `${s.token} not in a loop`);
        }
        break;
      case "IfStmt": {
        // An `elif` is an IfStmt alone in `else`: walk the chain in a loop, so that a chain of any
        // length costs no stack, visiting what the recursion would, in its order.
        this.ifstmts++;
        let st: IfStmt = s;
        for (;;) {
          if (!topLevelOK && !this.inFunction()) this.errorf(st, "if statement not within a function");
          this.expr(st.cond);
          this.stmts(st.then);
          const next = elifOf(st);
          if (next === undefined) break;
          st = next;
        }
        this.stmts(st.else);
        this.ifstmts--;
        break;
      }
      case "AssignStmt":
        this.expr(s.rhs);
        this.assign(s.lhs, s.op !== "=");
        break;
      case "DefStmt":
        this.bind(s.name);
        this.function(s, s.params, () => this.stmts(s.body));
        break;
      case "ForStmt":
        if (!topLevelOK && !this.inFunction()) this.errorf(s, "for loop not within a function");
        this.expr(s.x);
        this.assign(s.vars, false);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        break;
      case "WhileStmt":
        if (!this.dialect.while) this.errorf(s, "this Starlark dialect does not support while loops");
        if (!topLevelOK && !this.inFunction()) this.errorf(s, "while loop not within a function");
        this.expr(s.cond);
        this.loops++;
        this.stmts(s.body);
        this.loops--;
        break;
      case "ReturnStmt":
        if (!this.inFunction()) this.errorf(s, "return statement not within a function");
        if (s.result !== undefined) this.expr(s.result);
        break;
      case "LoadStmt":
        if (this.inFunction()) this.errorf(s, "load statement within a function");
        else if (this.loops > 0) this.errorf(s, "load statement within a loop");
        else if (this.ifstmts > 0) this.errorf(s, "load statement within a conditional");
        for (let i = 0; i < s.from.length; i++) {
          const from = s.from[i];
          const fromPos = s.fromPos[i] ?? s.to[i];
          const id = s.to[i];
          if (from === "") {
            this.errorf(fromPos, "load: empty identifier");
            continue;
          }
          if (from[0] === "_") {
            this.errorf(fromPos, `load: names with leading underscores are not exported: ${from}`);
          }
          if (this.dialect.loadBindsGlobally === true) {
            this.bind(id);
          } else if (this.bindLocal(id) && !this.dialect.globalReassign) {
            this.errorf(id, `cannot reassign top-level ${id.name}`);
          }
        }
        break;
    }
  }

  private assign(lhs: Expr, augmented: boolean): void {
    switch (lhs.kind) {
      case "Ident":
        this.bind(lhs);
        break;
      case "IndexExpr":
        this.expr(lhs.x);
        this.expr(lhs.index);
        break;
      case "DotExpr":
        this.expr(lhs.x);
        break;
      case "TupleExpr":
      case "ListExpr":
        if (augmented) {
          const what = lhs.kind === "TupleExpr" ? "tuple" : "list";
          this.errorf(lhs, `can't use ${what} expression in augmented assignment`);
        }
        for (const e of lhs.list) this.assign(e, augmented);
        break;
      case "ParenExpr":
        this.assign(lhs.x, augmented);
        break;
      default:
        this.errorf(lhs, `can't assign to ${lhs.kind.toLowerCase()}`);
    }
  }

  // -------------------------------------------------------------------------
  // Expressions

  private expr(e: Expr): void {
    this.enter(e);
    try {
      this.exprInner(e);
    } finally {
      this.depth--;
    }
  }

  /**
   * Resolves an expression. The left operand of a binary operator and the operand of a postfix
   * (`.name`, `[i]`, `[a:b]`, `(args)`) are walked in a loop: the parser accepts chains of these of any
   * length (`a + b + ...`, `x.f().g()...`), which must not cost stack per link. The links are visited
   * in the recursion's order: the innermost operand first, then each link's other parts, inner to outer.
   */
  private exprInner(e: Expr): void {
    let inner = leftOperand(e);
    if (inner === undefined) {
      this.exprLeaf(e);
      return;
    }
    const links: Expr[] = [e];
    for (let l = leftOperand(inner); l !== undefined; l = leftOperand(inner)) {
      links.push(inner);
      inner = l;
    }
    this.expr(inner);
    for (let i = links.length - 1; i >= 0; i--) this.linkRest(links[i]);
  }

  /** The parts of a chain link other than its left operand. */
  private linkRest(e: Expr): void {
    switch (e.kind) {
      case "BinaryExpr":
        this.expr(e.y);
        break;
      case "IndexExpr":
        this.expr(e.index);
        break;
      case "SliceExpr":
        if (e.lo !== undefined) this.expr(e.lo);
        if (e.hi !== undefined) this.expr(e.hi);
        if (e.step !== undefined) this.expr(e.step);
        break;
      case "CallExpr":
        checkCallArgs(e, (pos, msg) => this.errorf(pos, msg), (x) => this.expr(x));
        break;
    }
  }

  private exprLeaf(e: Expr): void {
    switch (e.kind) {
      case "Ident":
        this.use(e);
        break;
      case "Literal":
        break;
      case "ListExpr":
      case "TupleExpr":
        for (const x of e.list) this.expr(x);
        break;
      case "CondExpr":
        this.expr(e.cond);
        this.expr(e.then);
        this.expr(e.else);
        break;
      case "Comprehension":
        this.comprehension(e);
        break;
      case "DictExpr":
        for (const entry of e.list) {
          this.expr(entry.key);
          this.expr(entry.value);
        }
        break;
      case "UnaryExpr":
        this.expr(e.x);
        break;
      case "LambdaExpr":
        this.function(e, e.params, () => this.expr(e.body));
        break;
      case "ParenExpr":
        this.expr(e.x);
        break;
    }
  }

  private comprehension(e: Comprehension): void {
    const first = e.clauses[0];
    if (first.kind !== "ForClause") throw new Error("comprehension must start with a for clause");
    // The first iterable is evaluated in the enclosing block: consider [x for x in x].
    this.expr(first.x);
    this.push({ parent: null, fn: null, isComp: true, bindings: new Map(), children: [], uses: [] });
    this.assign(first.vars, false);
    for (let i = 1; i < e.clauses.length; i++) {
      const c = e.clauses[i];
      if (c.kind === "IfClause") {
        this.expr(c.cond);
      } else {
        this.assign(c.vars, false);
        this.expr(c.x);
      }
    }
    if (e.body.kind === "DictEntry") {
      this.expr(e.body.key);
      this.expr(e.body.value);
    } else {
      this.expr(e.body);
    }
    this.pop();
  }

  private function(node: DefStmt | LambdaExpr, params: Param[], body: () => void): void {
    // Defaults are evaluated, hence resolved, in the enclosing environment.
    for (const p of params) {
      if (p.kind === "default") this.expr(p.default);
    }
    const info: FnInfo = { scope: newScope(), bindings: [] };
    const b: Block = { parent: null, fn: info, isComp: false, bindings: new Map(), children: [], uses: [] };
    this.push(b);
    const outerLoops = this.loops;
    const outerIfs = this.ifstmts;
    this.loops = 0;
    this.ifstmts = 0;

    let seenOptional = false;
    let star: Extract<Param, { kind: "star" }> | undefined;
    let starStar: Ident | undefined;
    let numKwonly = 0;
    for (const p of params) {
      switch (p.kind) {
        case "normal":
          if (starStar !== undefined) {
            this.errorf(p.name, `required parameter may not follow **${starStar.name}`);
          } else if (star !== undefined) {
            numKwonly++;
          } else if (seenOptional) {
            this.errorf(p.name, "required parameter may not follow optional");
          }
          if (this.bind(p.name)) this.errorf(p.name, `duplicate parameter: ${p.name.name}`);
          break;
        case "default": {
          const opPos = { line: p.eqLine, col: p.eqCol };
          if (starStar !== undefined) {
            this.errorf(opPos, `optional parameter may not follow **${starStar.name}`);
          } else if (star !== undefined) {
            numKwonly++;
          }
          if (this.bind(p.name)) this.errorf(opPos, `duplicate parameter: ${p.name.name}`);
          seenOptional = true;
          break;
        }
        case "star":
          if (starStar !== undefined) {
            this.errorf(p, `* parameter may not follow **${starStar.name}`);
          } else if (star !== undefined) {
            this.errorf(p, "multiple * parameters not allowed");
          } else {
            star = p;
          }
          break;
        case "starstar":
          if (starStar !== undefined) {
            this.errorf(p, "multiple ** parameters not allowed");
          }
          starStar = p.name;
          break;
      }
    }
    // *args and **kwargs take the last slots so that the named parameters are contiguous.
    if (star !== undefined) {
      if (star.name !== undefined) {
        if (this.bind(star.name)) this.errorf(star.name, `duplicate parameter: ${star.name.name}`);
        info.scope.hasVarargs = true;
      } else if (numKwonly === 0) {
        this.errorf(star, "bare * must be followed by keyword-only parameters");
      }
    }
    if (starStar !== undefined) {
      if (this.bind(starStar)) this.errorf(starStar, `duplicate parameter: ${starStar.name}`);
      info.scope.hasKwargs = true;
    }
    info.scope.numParams = info.scope.locals.length;
    info.scope.numKwonlyParams = numKwonly;
    node.scope = info.scope;

    body();

    this.resolveLocalUses(b);
    this.pop();
    this.loops = outerLoops;
    this.ifstmts = outerIfs;
    this.pendingScopes.push(info);
  }
}
