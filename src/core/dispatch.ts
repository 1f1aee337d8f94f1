/**
 * The host half of a native call, steps 2–5 of the seed's order: re-bind the worker's arguments against
 * the input schema and build a fresh canonical authorization map, call the authorizer, call the handler
 * only when authorization succeeded, and convert the handler's output against the output schema.
 *
 * Classification: binding → `invalid_arguments`; a {@link DeniedError} anywhere in the authorizer's
 * error chain → `permission_denied`; any other authorizer failure → `policy_failure`; a handler error →
 * `capability_failure` (a JS programming error is the analog of a Go panic → `internal`); invalid output
 * → `capability_failure`. Messages name the capability but never carry the authorizer's or handler's text;
 * the trusted error stays as `cause`, which `Server.execute` removes.
 *
 * @module
 */
import { type Authorizer, isDenied, type Subject, withSubject } from "../../authz.ts";
import { raceAbort } from "../abort.ts";
import { bindArguments, convertOutput } from "./binding.ts";
import { CapabilityError, isModelSafeText } from "./capability.ts";
import type { Catalog } from "./catalog.ts";
import { CodeModeError } from "../errors.ts";
import { escapeModelText } from "../text.ts";
import type { NativeDispatch } from "../executor/mod.ts";
import type { Limits } from "./limits.ts";

/** What one execution's dispatcher needs. */
export interface DispatchOptions {
  /** The enabled capabilities (indexes match the executor's stubs). */
  readonly catalog: Catalog;
  /** Decides every call. */
  readonly authorizer: Authorizer;
  /** Resolved limits (native-call count and value depth are re-checked here). */
  readonly limits: Limits;
  /** The trusted subject of the execution. */
  readonly subject: Subject;
}

function deniedInChain(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 16 && e !== null && e !== undefined; i++) {
    if (isDenied(e)) return true;
    if (e instanceof CodeModeError && e.code === "permission_denied") return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}

/** Classifies an authorizer failure. */
export function classifyAuthorizerError(name: string, err: unknown): CodeModeError {
  if (deniedInChain(err)) {
    return new CodeModeError("permission_denied", `${name}: permission denied`, { cause: err });
  }
  return new CodeModeError("policy_failure", `${name}: authorization policy failed`, { cause: err });
}

const PANIC_CLASSES: readonly (abstract new (...args: never[]) => Error)[] = [
  TypeError,
  ReferenceError,
  RangeError,
  SyntaxError,
  EvalError,
  URIError,
];

/** Whether a thrown value is a JS programming error (the analog of a recovered Go panic). */
export function isPanic(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const proto = Object.getPrototypeOf(err);
  return PANIC_CLASSES.some((c) => proto === c.prototype);
}

const DETAIL_CODES = new Set(["invalid_arguments", "capability_failure", "invalid_program"]);

/** Classifies a handler failure. */
export function classifyHandlerError(name: string, err: unknown): CodeModeError {
  if (err instanceof CodeModeError) {
    // A handler may classify its own failure (the gateway reports its policy denials this way).
    const detail = err.detail !== undefined && DETAIL_CODES.has(err.code) && isModelSafeText(err.detail)
      ? escapeModelText(err.detail)
      : undefined;
    return new CodeModeError(err.code, `${name}: ${err.code.replaceAll("_", " ")}`, { cause: err, detail });
  }
  if (isDenied(err)) {
    return new CodeModeError("permission_denied", `${name}: permission denied`, { cause: err });
  }
  if (isPanic(err)) {
    return new CodeModeError("internal", `${name}: handler raised a programming error`, { cause: err });
  }
  // Approved text still has its line separators and invisible characters escaped.
  const detail = err instanceof CapabilityError && err.safeForModel && isModelSafeText(err.message)
    ? escapeModelText(err.message)
    : undefined;
  return new CodeModeError("capability_failure", `${name}: capability failed`, { cause: err, detail });
}

/** Creates the dispatcher of one execution. It counts native calls itself (the worker is not trusted). */
export function createDispatch(options: DispatchOptions): NativeDispatch {
  const { catalog, authorizer, limits, subject } = options;
  let calls = 0;
  return async (capabilityIndex, args, signal) => {
    if (signal.aborted) throw signal.reason;
    calls++;
    if (calls > limits.maxNativeCalls) {
      throw new CodeModeError("resource_limit", `more than ${limits.maxNativeCalls} native calls`);
    }
    const entry = Number.isInteger(capabilityIndex) ? catalog.entries[capabilityIndex] : undefined;
    if (entry === undefined) {
      throw new CodeModeError("internal", `worker asked for unknown capability index ${capabilityIndex}`);
    }
    const name = entry.name;
    const { input, canonical } = bindArguments(name, entry.input, args, limits.maxValueDepth);

    try {
      // Trusted code runs with the execution's subject installed, so `currentSubject()` works inside.
      const verdict: unknown = await raceAbort<unknown>(
        withSubject(subject, async () =>
          await authorizer.authorize(
            { subject, capabilityId: entry.id, capabilityName: name, arguments: canonical },
            { signal },
          )),
        signal,
      );
      // Only "no value" allows: a policy that returns `false` meant to deny, so it must not pass.
      if (verdict !== undefined && verdict !== true) {
        throw new TypeError(
          "authorizer resolved to a value; resolve to nothing to allow, throw DeniedError to deny",
        );
      }
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw classifyAuthorizerError(name, err);
    }

    let output: unknown;
    try {
      output = await raceAbort(
        withSubject(
          subject,
          async () => await entry.handler(input, { subject, signal, capability: { id: entry.id, name } }),
        ),
        signal,
      );
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw classifyHandlerError(name, err);
    }
    // Size and depth are checked while converting, so an oversized result is refused before it is walked.
    return convertOutput(name, entry.output, output, limits.maxValueDepth, limits.maxValueBytes);
  };
}
