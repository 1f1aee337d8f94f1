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
import { bindArguments } from "./binding.ts";
import { convertOutput } from "./output.ts";
import { CapabilityError, isModelSafeText } from "./capability.ts";
import type { Catalog } from "./catalog.ts";
import { budgetError } from "../budgets.ts";
import { CodeModeError } from "../errors.ts";
import { escapeModelText } from "../text.ts";
import type { NativeDispatch } from "../executor/mod.ts";
import type { Limits } from "./limits.ts";
import {
  activeContext,
  type Context,
  inSpan,
  type Span,
  type SpanAttributes,
  withSpan,
} from "./telemetry.ts";

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
  /** Told about every failed call with its full cause (the server adds the execution's identity). */
  readonly onError?: (event: CallFailure) => void;
  /** Where the call spans go: under the execution's span, with its attributes. */
  readonly trace?: { readonly parent: Context; readonly attributes: SpanAttributes };
}

/** A failed call, for the host's error hook. */
export interface CallFailure {
  /** The classified error with its cause. */
  readonly error: CodeModeError;
  /** Its code. */
  readonly code: CodeModeError["code"];
  /** Which step failed. */
  readonly phase: "authorize" | "handler" | "result";
  /** The capability. */
  readonly capability: { readonly id: string; readonly name: string };
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

/**
 * The model detail of a capability failure: always the capability's name (a program may call many; the
 * name is what the model wrote, so it leaks nothing), then the approved text, if any.
 */
function failureDetail(name: string, approved: string | undefined): string {
  return approved === undefined ? name : `${name}: ${approved}`;
}

/** Classifies a handler failure. */
export function classifyHandlerError(name: string, err: unknown): CodeModeError {
  if (err instanceof CodeModeError) {
    // A handler may classify its own failure (the gateway reports its policy denials this way).
    const approved = err.detail !== undefined && DETAIL_CODES.has(err.code) && isModelSafeText(err.detail)
      ? escapeModelText(err.detail)
      : undefined;
    const detail = err.code === "capability_failure" ? failureDetail(name, approved) : approved;
    return new CodeModeError(err.code, `${name}: ${err.code.replaceAll("_", " ")}`, { cause: err, detail });
  }
  if (isDenied(err)) {
    return new CodeModeError("permission_denied", `${name}: permission denied`, { cause: err });
  }
  if (isPanic(err)) {
    return new CodeModeError("internal", `${name}: handler raised a programming error`, { cause: err });
  }
  // Approved text still has its line separators and invisible characters escaped.
  const approved = err instanceof CapabilityError && err.safeForModel && isModelSafeText(err.message)
    ? escapeModelText(err.message)
    : undefined;
  return new CodeModeError("capability_failure", `${name}: capability failed`, {
    cause: err,
    detail: failureDetail(name, approved),
  });
}

/** Creates the dispatcher of one execution. It counts native calls itself (the worker is not trusted). */
export function createDispatch(options: DispatchOptions): NativeDispatch {
  const { catalog, authorizer, limits, subject, onError } = options;
  const parent = options.trace?.parent ?? activeContext();
  const base = options.trace?.attributes ?? {};
  let calls = 0;
  return (capabilityIndex, args, signal) => {
    const entry = Number.isInteger(capabilityIndex) ? catalog.entries[capabilityIndex] : undefined;
    const attributes = entry === undefined
      ? base
      : { ...base, "codemode.capability.name": entry.name, "codemode.capability.id": entry.id };
    return inSpan(
      "codemode.call",
      attributes,
      parent,
      (span) => oneCall(capabilityIndex, args, signal, span),
    );
  };

  async function oneCall(
    capabilityIndex: number,
    args: Record<string, unknown>,
    signal: AbortSignal,
    span: Span,
  ): Promise<unknown> {
    if (signal.aborted) throw signal.reason;
    calls++;
    if (calls > limits.maxNativeCalls) {
      throw budgetError(
        "maxNativeCalls",
        limits.maxNativeCalls,
        `more than ${limits.maxNativeCalls} native calls`,
      );
    }
    const entry = Number.isInteger(capabilityIndex) ? catalog.entries[capabilityIndex] : undefined;
    if (entry === undefined) {
      throw new CodeModeError("internal", `worker asked for unknown capability index ${capabilityIndex}`);
    }
    const name = entry.name;
    const { input, canonical } = bindArguments(name, entry.input, args, limits.maxValueDepth);
    const capability = { id: entry.id, name };
    const failed = (phase: CallFailure["phase"], error: CodeModeError): CodeModeError => {
      onError?.({ error, code: error.code, phase, capability });
      return error;
    };

    await inSpan(
      "codemode.authorize",
      { "codemode.capability.name": name },
      withSpan(span),
      async (authz) => {
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
          authz.setAttribute("codemode.authz.decision", "allow");
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          const error = classifyAuthorizerError(name, err);
          authz.setAttribute(
            "codemode.authz.decision",
            error.code === "permission_denied" ? "deny" : "failure",
          );
          throw failed("authorize", error);
        }
      },
    );

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
      throw failed("handler", classifyHandlerError(name, err));
    }
    // Size and depth are checked while converting, so an oversized result is refused before it is walked.
    try {
      return convertOutput(name, entry.output, output, limits.maxValueDepth, limits.maxValueBytes);
    } catch (err) {
      throw err instanceof CodeModeError ? failed("result", err) : err;
    }
  }
}
