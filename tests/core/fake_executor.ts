/**
 * A scripted stand-in for the worker executor: `run()` hands the request to a script that calls the
 * host dispatcher directly, so the host half of native calls can be tested without a Starlark engine.
 *
 * @module
 */
import type { ExecutionRequest, Executor } from "../../src/executor/contract.ts";

/** A script playing the part of one program. */
export type Script = (request: ExecutionRequest, call: NativeCaller) => unknown;

/** Calls a capability by name through the request's dispatcher, as the worker would. */
export type NativeCaller = (
  name: string,
  args: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<unknown>;

/** An executor that runs scripts instead of programs and records what it was given. */
export class ScriptedExecutor implements Executor {
  /** Every request, in order. */
  readonly requests: ExecutionRequest[] = [];
  /** How many times `close()` ran. */
  closeCalls = 0;
  /** Options the probe was called with, if any. */
  probeCalls: { timeout: number }[] = [];
  #script: Script;

  /** Creates an executor that runs `script` for every request. */
  constructor(script: Script = () => null) {
    this.#script = script;
  }

  /** Replaces the script. */
  set script(script: Script) {
    this.#script = script;
  }

  /** Runs the script. */
  async run(request: ExecutionRequest): Promise<unknown> {
    this.requests.push(request);
    const fallback = new AbortController().signal;
    const call: NativeCaller = (name, args, signal) => {
      const index = request.capabilities.findIndex((c) => c.name === name);
      return request.dispatch(index, args, signal ?? request.signal ?? fallback);
    };
    return await this.#script(request, call);
  }

  /** Counts closes. */
  close(): Promise<void> {
    this.closeCalls++;
    return Promise.resolve();
  }
}

/** A {@link ScriptedExecutor} that also has a probe. */
export class ProbedExecutor extends ScriptedExecutor {
  #fail: unknown;
  /** Creates an executor whose probe rejects with `fail` when given. */
  constructor(fail?: unknown) {
    super();
    this.#fail = fail;
  }
  /** Records the call and fails when configured to. */
  probe(options: { timeout: number }): Promise<void> {
    this.probeCalls.push(options);
    return this.#fail === undefined ? Promise.resolve() : Promise.reject(this.#fail);
  }
}
