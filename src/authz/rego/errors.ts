/**
 * Errors of the Rego authorizer. Every message starts with `rego:` so a host log line names its source.
 *
 * @module
 */

/** Why a policy could not be loaded. */
export type RegoLoadErrorKind =
  | "options"
  | "decision"
  | "wasm"
  | "bundle"
  | "builtins"
  | "entrypoint"
  | "data"
  | "aborted";

/**
 * A policy, bundle, decision reference or option was rejected while loading. Loading never yields a
 * partially usable authorizer: any problem is this error.
 */
export class RegoLoadError extends Error {
  /** Which check failed. */
  readonly kind: RegoLoadErrorKind;
  /** Creates a load error; `message` should start with `rego:`. */
  constructor(kind: RegoLoadErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RegoLoadError";
    this.kind = kind;
  }
}

/** Why an evaluation failed (a policy failure, never a denial). */
export type RegoPolicyErrorKind = "undefined" | "not_boolean" | "evaluation" | "memory";

/**
 * An authorization decision could not be made: the decision was undefined or not a boolean, or the
 * evaluation failed (including wasm memory exhaustion). CodeMode maps it to `policy_failure` and never
 * shows its text to a program.
 */
export class RegoPolicyError extends Error {
  /** Which outcome occurred. */
  readonly kind: RegoPolicyErrorKind;
  /** Creates a policy error; `message` should start with `rego:`. */
  constructor(kind: RegoPolicyErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RegoPolicyError";
    this.kind = kind;
  }
}

/**
 * The text of anything the OPA SDK throws. It throws strings (`opa_abort` messages), plain objects with a
 * `message` (unimplemented builtins) and real errors (memory growth); logs need one readable line.
 */
export function thrownText(thrown: unknown): string {
  if (typeof thrown === "string") return thrown;
  if (thrown instanceof Error) return thrown.message;
  if (thrown !== null && typeof thrown === "object") {
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === "string") return message;
    try {
      const json = JSON.stringify(thrown);
      if (json !== undefined) return json;
    } catch {
      // Cyclic or otherwise unserializable: fall through to String().
    }
  }
  try {
    return String(thrown);
  } catch {
    return "unprintable error value";
  }
}
