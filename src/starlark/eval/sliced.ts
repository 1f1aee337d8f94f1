/**
 * Sliced runs: a Starlark call that returns to its host between slices of its time.
 *
 * An ordinary call holds its JS thread until it returns, which is right in a worker but starves every
 * other task of an isolate that runs many programs on one thread (the inline executor). A program
 * compiled with `sliced` gives every function, and its top level, a generator form (deep_compile.ts) in
 * which loops and comprehensions run as generators; a call started with {@link startCall} runs all of it
 * on the explicit stack of deep.ts, whose trampoline stops once the thread's pause is due
 * ({@link Thread.pauseAt}, checked at each interrupt poll) at the next loop turn or call, keeping its
 * activations for the next {@link SlicedCall.resume}. What runs in between cannot pause: one built-in
 * operation (bounded by the budgets and polled for the deadline), and constructs without a generator
 * form (see deep_compile.ts), whose calls nest on the JS stack.
 *
 * The state a run keeps beside its thread (call depth, the innermost explicit stack) is swapped in and
 * out by each resume, so other runs may take turns on the same JS thread.
 *
 * @module
 */
import type { Kwargs, Thread, Value } from "../values/mod.ts";
import { type DeepState, deepState, drive, newStack, PAUSED, setDeepState, type Stack } from "./deep.ts";
import type { StarFunction } from "./function.ts";

/** A call started with {@link startCall}: resume it until it has returned. */
export class SlicedCall {
  readonly #th: Thread;
  readonly #fn: StarFunction;
  readonly #args: readonly Value[] | undefined;
  readonly #kwargs: Kwargs | null;
  #stack: Stack | null = null;
  #done = false;
  #value: Value = null;
  // This run's share of deep.ts's state while it is paused: it starts at the host's depth. Its root
  // stack is virtual: every activation charges what the same call charges in an ordinary run.
  #state: DeepState;

  /** @internal Use {@link startCall}. */
  constructor(th: Thread, fn: StarFunction, args: readonly Value[] | undefined, kwargs: Kwargs | null) {
    this.#th = th;
    this.#fn = fn;
    this.#args = args;
    this.#kwargs = kwargs;
    this.#state = { ...deepState(), act: { open: 0 } };
  }

  /** Whether the call has returned. */
  get done(): boolean {
    return this.#done;
  }

  /** The call's result, once {@link done}. */
  get value(): Value {
    return this.#value;
  }

  /**
   * Runs the call until it returns (true) or its thread's pause is due (false: call again to go on).
   *
   * @throws what the call throws (an `EvalError` with its call stack, a `ResourceError`...); the call is
   * over then.
   */
  resume(): boolean {
    if (this.#done) return true;
    const th = this.#th;
    const outer = deepState();
    setDeepState(this.#state);
    th.pauseDue = false;
    try {
      this.#stack ??= newStack(th, this.#fn, this.#args, this.#kwargs, true);
      const r = drive(th, this.#stack, true);
      if (r === PAUSED) {
        this.#state = deepState();
        return false;
      }
      this.#done = true;
      this.#value = r;
      this.#stack = null;
      return true;
    } catch (e) {
      this.#done = true;
      this.#stack = null;
      throw e;
    } finally {
      setDeepState(outer);
    }
  }
}

/**
 * Starts a call of `fn` that can pause (see the module doc): nothing runs until the first
 * {@link SlicedCall.resume}. `fn` should come from a program compiled with `sliced`; any other runs
 * its loops without pausing. `args` undefined: the parameters are already bound (a top level).
 */
export function startCall(
  th: Thread,
  fn: StarFunction,
  args: readonly Value[] | undefined,
  kwargs: Kwargs | null = null,
): SlicedCall {
  return new SlicedCall(th, fn, args, kwargs);
}
