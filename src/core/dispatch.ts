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
import { type Authorizer, DeniedError, type Subject, withSubject } from "../../authz.ts";
import { raceAbort } from "../abort.ts";
import { bindArguments } from "./binding.ts";
import { convertOutput } from "./output.ts";
import { CapabilityError, isModelSafeText } from "./capability.ts";
import type { Catalog } from "./catalog.ts";
import { budgetError } from "../budgets.ts";
import { CodeModeError, ERROR_CODES, type ErrorCode } from "../errors.ts";
import { isInstance, isOpaque, ownData } from "./opaque.ts";
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
  /**
   * When the execution's time is up (`performance.now()` clock): converting a handler's result polls it
   * and stops with `resource_limit` (maxExecutionTime) past it. Default: no deadline.
   */
  readonly deadline?: number;
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

// Reads the chain through own data properties only (see opaque.ts): an opaque link ends it undenied.
function deniedInChain(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i < 16 && e !== null && e !== undefined; i++) {
    if (isInstance(e, DeniedError)) return true;
    if (isInstance(e, CodeModeError) && ownData(e, "code") === "permission_denied") return true;
    e = isInstance(e, Error) ? ownData(e, "cause") : undefined;
  }
  return false;
}

/**
 * Classifies an authorizer failure. Whatever was thrown is only inspected without running its code (a
 * Proxy or an object with throwing getters is a policy failure like any other).
 */
export function classifyAuthorizerError(name: string, err: unknown): CodeModeError {
  let denied = false;
  try {
    denied = deniedInChain(err);
  } catch {
    // Nothing above runs the value's code; an exotic host object that still throws is not a denial.
  }
  if (denied) {
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

/**
 * Whether a thrown value is a JS programming error (the analog of a recovered Go panic): an instance of
 * exactly one of the built-in error classes, never a Proxy of one.
 */
export function isPanic(err: unknown): boolean {
  if (!isInstance(err, Error)) return false;
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

/**
 * The runtime's message for reading a property of a revoked Proxy: what a handler's promise rejects
 * with when the handler resolved it with one (resolving reads its `then`). Taken from the runtime itself.
 */
const REVOKED_READ: string | undefined = (() => {
  const r = Proxy.revocable({}, {});
  r.revoke();
  try {
    void (r.proxy as { then?: unknown }).then;
  } catch (e) {
    return e instanceof TypeError ? e.message : undefined;
  }
  return undefined;
})();

/** The failure of a handler that threw or returned something the host does not look into. */
function opaqueFailure(name: string, err: unknown): CodeModeError {
  return new CodeModeError("capability_failure", `${name}: capability failed`, {
    cause: err,
    detail: failureDetail(name, undefined),
  });
}

/** Model-safe text of a string, escaped; undefined for anything else or unsafe text. */
function approvedText(text: unknown): string | undefined {
  return typeof text === "string" && isModelSafeText(text) ? escapeModelText(text) : undefined;
}

/**
 * Classifies a handler failure. The thrown value is inspected only without running its code (its own
 * data properties, its prototype chain): a Proxy — revoked or with traps that throw — an Error wrapped
 * in one, or anything else that cannot be read that way is a plain `capability_failure`.
 */
export function classifyHandlerError(name: string, err: unknown): CodeModeError {
  try {
    return classifyReadable(name, err);
  } catch {
    // Only an exotic host object could get here (nothing above runs the value's code).
    return opaqueFailure(name, err);
  }
}

function classifyReadable(name: string, err: unknown): CodeModeError {
  if (isOpaque(err)) return opaqueFailure(name, err);
  const code = ownData(err, "code");
  if (isInstance(err, CodeModeError) && typeof code === "string" && ERROR_CODES.includes(code as ErrorCode)) {
    // A handler may classify its own failure (the gateway reports its policy denials this way).
    const own = code as ErrorCode;
    const approved = DETAIL_CODES.has(own) ? approvedText(ownData(err, "detail")) : undefined;
    const detail = own === "capability_failure" ? failureDetail(name, approved) : approved;
    return new CodeModeError(own, `${name}: ${own.replaceAll("_", " ")}`, { cause: err, detail });
  }
  if (isInstance(err, DeniedError)) {
    return new CodeModeError("permission_denied", `${name}: permission denied`, { cause: err });
  }
  if (isInstance(err, TypeError) && REVOKED_READ !== undefined && ownData(err, "message") === REVOKED_READ) {
    // The runtime's own refusal to read a revoked Proxy: an async handler resolved its promise with one.
    return opaqueFailure(name, err);
  }
  if (isPanic(err)) {
    return new CodeModeError("internal", `${name}: handler raised a programming error`, { cause: err });
  }
  // Approved text still has its line separators and invisible characters escaped.
  const approved = isInstance(err, CapabilityError) && ownData(err, "safeForModel") === true
    ? approvedText(ownData(err, "message"))
    : undefined;
  return new CodeModeError("capability_failure", `${name}: capability failed`, {
    cause: err,
    detail: failureDetail(name, approved),
  });
}

/** Creates the dispatcher of one execution. It counts native calls itself (the worker is not trusted). */
export function createDispatch(options: DispatchOptions): NativeDispatch {
  const { catalog, authorizer, limits, subject, onError } = options;
  const deadline = options.deadline ?? Infinity;
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

    // The result stays wrapped until it is converted: resolving a promise with a Proxy reads its `then`
    // (a trap), so an opaque result is never handed to the promise machinery; the conversion refuses it.
    let output: { readonly value: unknown };
    try {
      output = await raceAbort(
        withSubject(subject, async () => {
          const returned = entry.handler(input, { subject, signal, capability: { id: entry.id, name } });
          return { value: isOpaque(returned) ? returned : await returned };
        }),
        signal,
      );
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw failed("handler", classifyHandlerError(name, err));
    }
    // Size and depth are checked while converting, so an oversized result is refused before it is walked.
    try {
      return convertOutput(
        name,
        entry.output,
        output.value,
        limits.maxValueDepth,
        limits.maxValueBytes,
        deadline,
      );
    } catch (err) {
      throw failed(
        "result",
        isInstance(err, CodeModeError) ? err as CodeModeError : opaqueFailure(name, err),
      );
    }
  }
}
