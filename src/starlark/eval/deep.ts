/**
 * Deep calls on an explicit stack.
 *
 * Compiled closures evaluate a Starlark call by a JS call, so every Starlark frame costs JS stack (a few
 * hundred bytes: about 1,800 frames fit in V8's default stack). Past {@link DEEP_START} nested calls of
 * functions compiled with recursion on, a call runs here instead: the callee's body runs as a generator
 * (deep_compile.ts) that *yields* each Starlark→Starlark call it makes as a {@link CallRequest}; this
 * loop keeps the activations on an array and resumes the caller with the result, so nested calls cost
 * heap, not stack, and depth is bounded by `maxCallDepth` and the budgets. Each activation does what
 * {@link runFunction} does (steps, depth and recursion checks, argument binding, cells, traceback
 * frames on errors), in the same order.
 *
 * A built-in that calls back into Starlark (`sorted`, `min` and `max` with a `key`: the ones with a
 * generator form, `Builtin.gen`) called from a deep body runs here as an activation too: each key
 * call it yields becomes an activation above it, so recursion through a built-in costs no JS stack
 * either, and its frame counts towards `maxCallDepth` like the reference's.
 *
 * Constructs the generator compiler does not handle (see deep_compile.ts) run as ordinary closures
 * inside an activation; a call they make re-enters here on a nested loop, which
 * costs a few JS frames per such crossing, and running out of JS stack is the usual `depth` resource
 * error ("nesting too deep").
 *
 * @module
 */
import {
  Builtin,
  type Callback,
  callOne,
  EvalError,
  HOST_TURN,
  iterate,
  type Kwargs,
  List,
  Range,
  type Thread,
  Tuple,
  typeName,
  type Value,
  type ValueIterator,
} from "../values/mod.ts";
import { bindArgs, chargeSteps, depthError, tick, undefinedResult } from "./calls.ts";
import { errorAt, leaveBuiltin, leaveFunction, leaveFunctions } from "./errors.ts";
import {
  BREAK,
  callDepth,
  Cell,
  F_LOCALS,
  F_RESULT,
  F_THREAD,
  type Frame,
  type FuncCode,
  newFrame,
  NORMAL,
  type Pos,
  RETURN,
  StarFunction,
} from "./function.ts";
import { Pairs } from "./loops.ts";

/**
 * Nested Starlark calls on the JS stack from which calls of recursion-enabled functions run on the
 * explicit stack: counted from the activation of the innermost explicit stack, so that calls nested
 * through built-ins (a `sorted` key calling back) or ordinary closures inside it first run as fast as
 * ever, and only their own deep nesting starts another explicit stack.
 */
export const DEEP_START = 100;

/**
 * Steps charged per activation beside the call's own: an activation on the explicit stack costs about
 * as much time as this many ordinary steps (its generators), and the budgets must see that.
 */
export const DEEP_FRAME_STEPS = 64;

/**
 * The steps an activation charges beside its call's own: {@link DEEP_FRAME_STEPS}. The root stack of a
 * sliced run (sliced.ts), where every call is an activation, charges them only for the activations an
 * ordinary run would have put on an explicit stack (see {@link Stack.virtual}).
 */
export const frameSteps = { n: DEEP_FRAME_STEPS };

/** The call depth of the activation the innermost explicit stack is running (see {@link DEEP_START}). */
export const deepBase = { n: 0 };

/**
 * Memory charged for each activation while it is live (its frame, generators and their state: 0.8 to
 * 1.3 KB measured for small bodies), and given back when it ends: deep recursion holds real heap, while
 * ordinary depth is bounded by the JS stack. A loop running in an activation adds
 * {@link DEEP_LOOP_BYTES} while it runs.
 */
export const DEEP_FRAME_BYTES = 1536;

/** Memory charged while a loop of a deep activation runs (its generators and iteration state). */
export const DEEP_LOOP_BYTES = 1024;

/**
 * A call made by a deep body, for {@link runDeep} to perform: of a Starlark function, or of a built-in
 * with a generator form (see {@link calledDeep}).
 */
export interface CallRequest {
  /** The callee. */
  readonly fn: StarFunction | Builtin;
  /** Positional arguments. */
  readonly args: Value[];
  /** Named arguments, or null. */
  readonly kwargs: Kwargs | null;
  /** Position of the call in the caller. */
  readonly site: Pos;
}

/**
 * Yielded by a loop of a deep body at a turn when its thread's pause is due ({@link Thread.pauseDue}):
 * the trampoline of a sliced run (sliced.ts) then stops and returns to its host; any other goes on.
 */
export const PAUSE: CallRequest = Object.freeze({
  fn: new Builtin("pause", () => null),
  args: [],
  kwargs: null,
  site: { line: 0, col: 0 },
});

/** Whether a deep body yields its call of `f` to the trampoline (rather than calling it itself). */
export function calledDeep(f: Value): f is StarFunction | Builtin {
  // A function whose body has no generator form cannot nest: it is called directly, like a built-in.
  if (f instanceof StarFunction) return deepBodyOf(f.code) !== null;
  return f instanceof Builtin && f.gen !== undefined;
}

/** A compiled expression of a deep body: yields calls, returns the value. */
export type DeepExpr = (fr: Frame) => Generator<CallRequest, Value, Value>;
/** A compiled statement of a deep body: yields calls, returns a completion code. */
export type DeepStmt = (fr: Frame) => Generator<CallRequest, number, Value>;

/** A call on the explicit stack: of a Starlark function (`code`), or of a built-in (`bgen`). */
interface Activation {
  /** The function's code; null for a built-in. */
  readonly code: FuncCode | null;
  /** The built-in's name ("" for a function). */
  readonly builtin: string;
  readonly fr: Frame | null;
  readonly site: Pos | null;
  /** The function's body, or null when it ran to completion in {@link enter}. */
  readonly gen: Generator<CallRequest, number, Value> | null;
  /** The built-in's generator. */
  readonly bgen: Generator<Callback, Value, Value> | null;
  /** Loops of this activation holding a list or an iterator open (see {@link running}). */
  open: number;
  /**
   * Whether an ordinary run would have made this call an activation on an explicit stack (always, but
   * on the root stack of a sliced run): it then charges {@link frameSteps} and its memory, and every
   * call its body makes is one too.
   */
  readonly deep: boolean;
  /** Not deep: the {@link deepBase} an ordinary run would have while its body runs. */
  readonly vBase: number;
}

/**
 * The activation being resumed. A loop that holds a list or an iterator open counts itself on it, so
 * that an error unwinding the stack resumes (to run the `finally` that releases them) only the
 * activations that have something to release: Starlark cannot catch errors, and resuming every
 * generator with a throw would cost microseconds per frame.
 */
export const running: { act: { open: number; readonly deep?: boolean } } = { act: { open: 0 } };

const NONE: unique symbol = Symbol("none");

/**
 * Starts an activation: everything {@link runFunction} does before the body. Returns undefined when
 * the callee's body has no deep form and was run to completion here (its value is in the frame).
 */
function enter(
  th: Thread,
  fn: StarFunction,
  fr: Frame,
  site: Pos | null,
  args: readonly Value[] | undefined,
  kwargs: Kwargs | null | undefined,
  deep = true,
  vBase = 0,
): Activation {
  const code = fn.code;
  chargeSteps(th, code.bodySteps + (deep ? frameSteps.n : 0));
  if (callDepth.n >= th.maxCallDepth) throw depthError(th, code, site);
  if (code.active > 0 && !code.recursion) {
    throw leaveFunction(new EvalError(`function ${code.name} called recursively`), code, site);
  }
  const bytes = deep ? DEEP_FRAME_BYTES : 0;
  if (deep) th.allocate(bytes);
  callDepth.n++;
  code.active++;
  deepBase.n = callDepth.n;
  try {
    if (args !== undefined) {
      if (
        code.simple && args.length === code.numParams &&
        (kwargs === null || kwargs === undefined || kwargs.length === 0)
      ) {
        for (let i = 0; i < args.length; i++) fr[F_LOCALS + i] = args[i];
      } else {
        bindArgs(fr, fn, args, kwargs ?? null);
      }
    }
    const cells = code.cellSlots;
    for (let i = 0; i < cells.length; i++) fr[cells[i]] = new Cell(fr[cells[i]] as Value | undefined);
    const body = deepBodyOf(code);
    if (body === null) {
      // No deep form: the ordinary closures, on the JS stack.
      const expr = code.expr;
      if (expr !== null) fr[F_RESULT] = expr(fr);
      else code.body(fr);
      return { code, builtin: "", fr, site, gen: null, bgen: null, open: 0, deep, vBase };
    }
    return { code, builtin: "", fr, site, gen: body(fr), bgen: null, open: 0, deep, vBase };
  } catch (e) {
    callDepth.n--;
    code.active--;
    th.memory -= bytes;
    throw leaveFunction(e, code, site);
  }
}

/**
 * Starts the activation of a built-in with a generator form: what callBuiltin does before the call,
 * and, like {@link enter}, the depth, steps and memory of an activation.
 */
function enterBuiltin(
  th: Thread,
  b: Builtin,
  args: Value[],
  kwargs: Kwargs,
  site: Pos | null,
  deep: boolean,
  vBase: number,
): Activation {
  tick(th);
  if (deep) {
    chargeSteps(th, frameSteps.n);
    th.allocate(DEEP_FRAME_BYTES);
  }
  callDepth.n++;
  const bgen = b.gen!(th, args, kwargs, b);
  return { code: null, builtin: b.name, fr: null, site, gen: null, bgen, open: 0, deep, vBase };
}

/** Ends an activation (after its body returned or failed). */
function exit(th: Thread, a: Activation): void {
  callDepth.n--;
  if (a.code !== null) a.code.active--;
  if (a.deep) th.memory -= DEEP_FRAME_BYTES;
}

/**
 * The activation that performs `req` for `caller` (the callee's frame is on the error if it cannot
 * start). On a virtual stack, the callee is deep exactly when an ordinary run would have started an
 * explicit stack for it or been on one already: a deep caller's body yields every call it makes; a
 * built-in with a generator form is called directly from ordinary code; an ordinary function call goes
 * deep once it is {@link DEEP_START} calls above its base, with recursion on (runFunction's rule).
 */
function start(
  th: Thread,
  fn: StarFunction | Builtin,
  args: Value[],
  kwargs: Kwargs | null,
  site: Pos | null,
  caller: Activation,
  virtual: boolean,
): Activation {
  const deep = !virtual || caller.deep ||
    (!(fn instanceof Builtin) && fn.code.recursion && callDepth.n - caller.vBase >= DEEP_START);
  // An ordinary call keeps its caller's base; a deep one is the base of the calls its body makes.
  const vBase = deep ? 0 : caller.vBase;
  if (fn instanceof Builtin) return enterBuiltin(th, fn, args, kwargs ?? [], site, deep, vBase);
  return enter(th, fn, newFrame(fn.code, th, fn.module, fn.freevars), site, args, kwargs, deep, vBase);
}

function deepBodyOf(code: FuncCode): DeepStmt | null {
  if (code.deepBody === undefined) code.deepBody = code.deepMaker === null ? null : code.deepMaker(code);
  return code.deepBody as DeepStmt | null;
}

/**
 * Runs `fn` in frame `fr` (arguments bound like {@link runFunction}: already in the frame unless
 * `args` is given) and every Starlark call it makes in turn, on an explicit stack.
 */
export function runDeep(
  th: Thread,
  fn: StarFunction,
  fr: Frame,
  site: Pos | null,
  args?: readonly Value[],
  kwargs?: Kwargs | null,
): Value {
  const outer = deepState();
  try {
    return trampoline(th, enter(th, fn, fr, site, args, kwargs));
  } finally {
    // Restored, not counted down: a JS stack overflow inside the loop's own bookkeeping (near the
    // limit, calling exit() can overflow too) leaves activations behind, and their depth with them.
    setDeepState(outer);
  }
}

/** What a run keeps in this module's globals: its call depth and innermost explicit stack. */
export interface DeepState {
  readonly depth: number;
  readonly base: number;
  readonly act: { open: number };
  readonly frameSteps: number;
}

/** The current {@link DeepState}. */
export function deepState(): DeepState {
  return { depth: callDepth.n, base: deepBase.n, act: running.act, frameSteps: frameSteps.n };
}

/** Puts a {@link DeepState} back (after a nested run, or when a paused run resumes). */
export function setDeepState(s: DeepState): void {
  callDepth.n = s.depth;
  deepBase.n = s.base;
  running.act = s.act;
  frameSteps.n = s.frameSteps;
}

/**
 * The explicit stack of a call of `fn` (arguments bound as {@link runDeep} binds them), for
 * {@link drive}; the callee's frame is on the error if it cannot start.
 */
export function newStack(
  th: Thread,
  fn: StarFunction,
  args: readonly Value[] | undefined,
  kwargs: Kwargs | null,
  virtual = false,
): Stack {
  // A virtual root is the host's ordinary call of `fn`: never deep at the host's own base.
  const root = virtual
    ? enter(th, fn, newFrame(fn.code, th, fn.module, fn.freevars), null, args, kwargs, false, deepBase.n)
    : enter(th, fn, newFrame(fn.code, th, fn.module, fn.freevars), null, args, kwargs);
  return { acts: [root], send: null, err: NONE, left: [], virtual };
}

function trampoline(th: Thread, root: Activation): Value {
  return drive(th, { acts: [root], send: null, err: NONE, left: [] }, false) as Value;
}

/** An explicit stack between two {@link drive}s: the activations, and what the top one is sent next. */
export interface Stack {
  readonly acts: Activation[];
  send: Value;
  err: unknown;
  /** Frames an error has left since it was last annotated (see {@link drive}). */
  left: Activation[];
  /**
   * The root stack of a sliced run: every call is an activation here, but each charges steps and memory
   * as the same call does in an ordinary run (an activation only past {@link DEEP_START} calls, see
   * {@link start}) and sees the {@link deepBase} it would see there, so that a program uses the same
   * steps and passes or fails its budgets alike whichever way it runs (the inline executor runs a
   * program sliced that a worker runs ordinarily).
   */
  readonly virtual?: boolean;
}

/** What {@link drive} returns when it paused. */
export const PAUSED: unique symbol = Symbol("paused");

/**
 * Runs the explicit stack `st` until its root activation returns (its value) or, when `pausable`, until
 * the thread's pause is due ({@link PAUSED}; `st` then holds everything needed to go on). A nested stack
 * (not `pausable`: JS frames sit below it) ignores pauses.
 */
export function drive(th: Thread, st: Stack, pausable: boolean): Value | typeof PAUSED {
  const acts = st.acts;
  const virtual = st.virtual === true;
  let send = st.send;
  let err = st.err;
  // Frames an error has left since it was last annotated: a caller rethrows what its callee threw
  // (Starlark cannot catch), and those frames are added in one go (see leaveFunctions).
  let left = st.left;
  for (;;) {
    if (pausable && th.pauseDue) {
      st.send = send;
      st.err = err;
      st.left = left;
      return PAUSED;
    }
    const a = acts[acts.length - 1];
    let req: CallRequest | undefined;
    if (a.bgen !== null) {
      // A built-in: resumed with each result or error (it may hold an iterator open), never dropped.
      let cb: Callback;
      try {
        const r: IteratorResult<Callback, Value> = err === NONE ? a.bgen.next(send) : a.bgen.throw(err);
        err = NONE;
        if (r.done === true) {
          acts.pop();
          exit(th, a);
          if (r.value === undefined) throw undefinedResult(a.builtin);
          send = r.value;
          if (acts.length === 0) return send;
          continue;
        }
        cb = r.value;
        if (cb === HOST_TURN) {
          // The built-in waits for its host: a sliced run pauses (at the top of this loop) with it on
          // top of the stack, to resume it with nothing; a nested stack resumes it at once.
          send = null;
          if (pausable) th.pauseDue = true;
          continue;
        }
      } catch (e) {
        if (acts[acts.length - 1] === a) {
          acts.pop();
          exit(th, a);
        }
        if (e === err) {
          left.push(a);
        } else {
          left = [];
          err = leaveBuiltin(e, a.builtin, a.site);
        }
        if (acts.length === 0) throw left.length === 0 ? err : leaveFunctions(err, left);
        continue;
      }
      const f = cb.fn;
      try {
        if (calledDeep(f)) {
          acts.push(start(th, f, [cb.arg], null, null, a, virtual));
          send = null;
        } else {
          send = callOne(th, f, cb.arg);
        }
      } catch (e) {
        err = e;
        left = [];
      }
      continue;
    }
    // Only an activation with a generator is ever resumed: one without ran to completion in enter().
    if (a.gen !== null && err !== NONE && a.open === 0) {
      // The caller would only rethrow: drop it without resuming it.
      acts.pop();
      exit(th, a);
      left.push(a);
      if (acts.length === 0) throw leaveFunctions(err, left);
      continue;
    }
    if (a.gen !== null) {
      deepBase.n = a.deep ? callDepth.n : a.vBase;
      running.act = a;
      try {
        const r = err === NONE ? a.gen.next(send) : a.gen.throw(err);
        err = NONE;
        if (r.done !== true) req = r.value;
      } catch (e) {
        acts.pop();
        exit(th, a);
        if (e === err) {
          left.push(a);
        } else {
          left = [];
          err = leaveFunction(e, a.code!, a.site);
        }
        if (acts.length === 0) throw left.length === 0 ? err : leaveFunctions(err, left);
        continue;
      }
    }
    if (req === PAUSE) {
      // A loop's turn with the pause due: the top of this loop pauses, or a nested stack goes on.
      if (!pausable) th.pauseDue = false;
      send = null;
      continue;
    }
    if (req === undefined) {
      // The activation returned.
      acts.pop();
      exit(th, a);
      send = a.fr![F_RESULT] as Value;
      if (acts.length === 0) return send;
      continue;
    }
    try {
      acts.push(start(th, req.fn, req.args, req.kwargs, req.site, a, virtual));
      send = null;
    } catch (e) {
      err = e; // the callee's frame is on it already
      left = [];
    }
  }
}

/**
 * Runs `step` for each element of `x` like loops.ts's runLoop (lists held against mutation, a step
 * charge of `weight` per iteration, `BREAK` and `RETURN` honoured), as a generator; `plain` instead of
 * `step` when the iteration cannot call (no generator per turn). A turn with the pause due yields
 * {@link PAUSE}.
 */
export function* iterateDeep(
  fr: Frame,
  x: Value,
  pos: { line: number; col: number },
  weight: number,
  step: ((v: Value) => Generator<CallRequest, number, Value>) | null,
  plain: ((v: Value) => number) | null = null,
): Generator<CallRequest, number, Value> {
  const th = fr[F_THREAD] as Thread;
  const act = running.act;
  // The loop's own memory is live while it runs (see DEEP_LOOP_BYTES), charged before it holds anything;
  // in an activation an ordinary run would not have made (see Stack.virtual), as that run charges it.
  const loopBytes = act.deep === false ? 0 : DEEP_LOOP_BYTES;
  th.allocate(loopBytes);
  let it: ValueIterator | undefined;
  let list: List | undefined;
  let elems: readonly Value[] | undefined;
  let range: Range | undefined;
  let pairs: Pairs | undefined;
  if (x instanceof List) {
    list = x;
    elems = x.elems;
    x.itercount++;
  } else if (x instanceof Pairs) {
    pairs = x; // a pair loop's source (pairs.ts), its tuples already charged
  } else if (x instanceof Tuple) {
    elems = x.elems;
  } else if (x instanceof Range && x.big === undefined) {
    range = x;
  } else {
    try {
      it = iterate(x);
    } catch {
      th.memory -= loopBytes;
      throw errorAt(`${typeName(x)} value is not iterable`, pos);
    }
  }
  const holds = list !== undefined || it !== undefined;
  if (holds) act.open++;
  try {
    for (let i = 0;; i++) {
      let v: Value | undefined;
      if (elems !== undefined) v = i < elems.length ? elems[i] : undefined;
      else if (pairs !== undefined) {
        v = i < pairs.n ? new Tuple([pairs.left === null ? i : pairs.left[i], pairs.right[i]]) : undefined;
      } else if (range !== undefined) v = i < range.length ? range.start + i * range.step : undefined;
      else v = it!.next();
      if (v === undefined) break;
      chargeSteps(th, weight);
      if (th.pauseDue) yield PAUSE;
      const r = plain !== null ? plain(v) : yield* step!(v);
      if (r !== NORMAL) {
        if (r === BREAK) break;
        if (r === RETURN) return RETURN;
      }
    }
  } finally {
    th.memory -= loopBytes;
    if (list !== undefined) list.itercount--;
    it?.done();
    if (holds) act.open--;
  }
  return NORMAL;
}
