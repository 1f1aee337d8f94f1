/**
 * Keeps long-running programs from crowding short ones off the CPU cores.
 *
 * Web Workers are threads of the host process, scheduled by the OS thread by thread: four programs
 * spinning for seconds get four threads' share of two cores, and every short execution (and the host's
 * own thread, which answers their native calls) waits its turn behind them. While a short execution
 * runs next to more long runners than the cores leave room for, each long runner is held to a share
 * of a CPU: for a worker, the host lowers its duty in the shared buffer (`I_DUTY`), and the worker naps
 * between slices of work (an interrupt still wakes it at once); a child process, which reads nothing
 * while it computes, is stopped and continued by the host (SIGSTOP/SIGCONT) for the same duty. Alone,
 * long runners run at full speed.
 *
 * @module
 */

/** A running execution whose CPU share the host may set. */
export interface Runner {
  /** Holds it to `perMille` of a CPU (0: no limit). */
  setDuty(perMille: number): void;
  /** Whether it is still running (anything else ends its entry). */
  readonly state: string;
}

/** An execution that has run this long counts as long-running. */
export const LONG_RUN_MS = 20;
/** The lowest share (per mille) a long runner is held to. */
const MIN_DUTY = 100;
/** How often the shares are recomputed while something runs. */
const TICK_MS = 10;

/** Tracks running executions and sets the CPU share of the long-running ones. */
export class CpuShare {
  readonly #cores: number;
  readonly #running = new Map<Runner, { readonly started: number; duty: number }>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Shares `cores` CPU cores (default: the machine's). */
  constructor(cores: number = navigator.hardwareConcurrency || 2) {
    this.#cores = Math.max(1, cores);
  }

  /** `runner` started an execution. */
  started(runner: Runner): void {
    this.#running.set(runner, { started: performance.now(), duty: 0 });
    this.#update();
  }

  /** `runner` ended its execution (a no-op for one not tracked). */
  ended(runner: Runner): void {
    if (this.#running.delete(runner)) this.#update();
  }

  /** Stops tracking everything. Idempotent. */
  close(): void {
    this.#running.clear();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #update(): void {
    // Throttling needs more long runners than the room (cores - 1) and a short one beside them: more
    // runners than cores. Below that (the usual case) there is nothing to compute and no timer to keep.
    if (this.#running.size <= this.#cores) {
      this.#unthrottle();
      return;
    }
    const now = performance.now();
    const long: { runner: Runner; entry: { duty: number } }[] = [];
    let short = 0;
    for (const [runner, entry] of this.#running) {
      if (runner.state !== "busy") {
        this.#running.delete(runner);
        continue;
      }
      if (now - entry.started >= LONG_RUN_MS) long.push({ runner, entry });
      else short++;
    }
    // One core stays for the host's thread and the short executions.
    const room = this.#cores - 1;
    const duty = short > 0 && long.length > room
      ? Math.max(MIN_DUTY, Math.floor((1000 * room) / long.length))
      : 0;
    for (const { runner, entry } of long) {
      if (entry.duty !== duty) {
        entry.duty = duty;
        runner.setDuty(duty);
      }
    }
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#update(), TICK_MS);
      Deno.unrefTimer(this.#timer as unknown as number);
    }
  }

  #unthrottle(): void {
    if (this.#timer === undefined) return; // nothing was throttled since the last time
    clearInterval(this.#timer);
    this.#timer = undefined;
    for (const [runner, entry] of this.#running) {
      if (entry.duty !== 0) {
        entry.duty = 0;
        runner.setDuty(0);
      }
    }
  }
}
