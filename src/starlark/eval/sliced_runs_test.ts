/**
 * (Test helper, no tests.) Runs a compiled program twice over for the sliced-run tests: ordinarily, and sliced with a pause due
 * at every interrupt poll (`src/starlark/eval/sliced.ts`). Both run the top level, then `main()` when
 * the program defines one, and report how they ended, what they printed and the steps they charged.
 */
import { call, type Dialect, EvalError, type Program, type StarFunction, startCall, Thread } from "../mod.ts";

/** How a run ended. */
export interface Ending {
  /** `str()` of main's result, when the program has a `main` and it returned. */
  readonly value?: string;
  /** The error, with its call stack. */
  readonly error?: string;
  /** Printed lines. */
  readonly printed: string;
  /** Steps charged. */
  readonly steps: number;
}

/** A thread that polls after every step, so a sliced run pauses at every loop turn and call. */
class EveryStepThread extends Thread {
  override nextPoll = 1;
  override poll(): void {
    super.poll();
    this.nextPoll = this.steps + 1;
  }
}

function thread(printed: string[], dialect: Partial<Dialect>, everyStep = false): Thread {
  const options = {
    dialect,
    maxSteps: 50_000_000,
    print: (_t: Thread, msg: string) => void printed.push(msg),
  };
  return everyStep ? new EveryStepThread(options) : new Thread(options);
}

function describe(e: unknown): string {
  if (!(e instanceof EvalError)) return `${(e as Error).name}: ${(e as Error).message}`;
  const frames = e.callStack.map((f) => `${f.filename}:${f.line}:${f.col} ${f.name}`).join(" | ");
  return `${e.message} @ ${frames}`;
}

/** The ordinary run. */
export function ordinary(p: Program, dialect: Partial<Dialect>): Ending {
  const printed: string[] = [];
  const th = thread(printed, dialect);
  try {
    const main = p.run(th).get("main");
    const value = main === undefined ? undefined : String(call(th, main, [], []));
    return { ...(value === undefined ? {} : { value }), printed: printed.join("\n"), steps: th.steps };
  } catch (e) {
    return { error: describe(e), printed: printed.join("\n"), steps: th.steps };
  }
}

/**
 * The sliced run, a pause due at every poll (with `everyStep`, a poll after every step: a pause at
 * every loop turn and call); also reports how many times it paused.
 */
export function sliced(
  p: Program,
  dialect: Partial<Dialect>,
  everyStep = false,
): Ending & { pauses: number } {
  const printed: string[] = [];
  const th = thread(printed, dialect, everyStep);
  let pauses = 0;
  const drive = (resume: () => boolean) => {
    for (;;) {
      th.pauseAt = -Infinity;
      if (resume()) return;
      pauses++;
    }
  };
  try {
    const top = p.start(th);
    drive(() => top.top.resume());
    const fn = top.globals().get("main") as StarFunction | undefined;
    if (fn === undefined) return { printed: printed.join("\n"), steps: th.steps, pauses };
    const main = startCall(th, fn, []);
    drive(() => main.resume());
    return { value: String(main.value), printed: printed.join("\n"), steps: th.steps, pauses };
  } catch (e) {
    return { error: describe(e), printed: printed.join("\n"), steps: th.steps, pauses };
  }
}
