/**
 * The resolver's lexical environment: blocks (the file, functions, comprehensions), the uses recorded in
 * each, and the local lookup within one function.
 *
 * @module
 */
import type { Binding, FunctionScope, Ident } from "../syntax/ast.ts";

/** A binding as the resolver manipulates it (shared by every identifier bound to it). */
export type RBinding = Binding;

/** A function (or the file) being resolved: its scope and the bindings of its locals. */
export interface FnInfo {
  /** The scope being filled. */
  scope: FunctionScope;
  /** Bindings of the locals, parallel to `scope.locals`. */
  bindings: RBinding[];
}

/** A lexical block. */
export interface Block {
  /** Enclosing block; null for the file block. */
  parent: Block | null;
  /** The function of a function block; null for the file and comprehension blocks. */
  fn: FnInfo | null;
  /** Whether this is a comprehension block. */
  isComp: boolean;
  /** Names bound in this block (and memoized lookups through it). */
  bindings: Map<string, RBinding>;
  /** Nested blocks, in source order. */
  children: Block[];
  /** Uses not yet resolved, recorded on function and file blocks. */
  uses: Use[];
}

/** An identifier and the block it appears in. */
export interface Use {
  /** The identifier. */
  id: Ident;
  /** The innermost block where it appears. */
  env: Block;
}

/** An empty function scope. */
export function newScope(): FunctionScope {
  return {
    locals: [],
    cells: [],
    freevars: [],
    numParams: 0,
    numKwonlyParams: 0,
    hasVarargs: false,
    hasKwargs: false,
  };
}

/** Looks `u` up in its own function only (through comprehension blocks). */
export function lookupLocal(u: Use): RBinding | undefined {
  for (let env: Block | null = u.env; env !== null; env = env.parent) {
    const b = env.bindings.get(u.id.name);
    if (b !== undefined) return b;
    if (env.fn !== null) break;
  }
  return undefined;
}
