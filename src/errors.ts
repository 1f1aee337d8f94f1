/**
 * Typed errors of CodeMode: one {@link CodeModeError} class with a {@link ErrorCode}.
 *
 * @module
 */

/** The classification of every CodeMode failure (the seed's sentinel errors). */
export type ErrorCode =
  | "invalid_registration"
  | "unauthenticated"
  | "not_found"
  | "invalid_program"
  | "invalid_arguments"
  | "permission_denied"
  | "policy_failure"
  | "resource_limit"
  | "capability_failure"
  | "internal";

/** Every error code, in documentation order. */
export const ERROR_CODES: readonly ErrorCode[] = Object.freeze([
  "invalid_registration",
  "unauthenticated",
  "not_found",
  "invalid_program",
  "invalid_arguments",
  "permission_denied",
  "policy_failure",
  "resource_limit",
  "capability_failure",
  "internal",
]);

/** Options of a {@link CodeModeError}. */
export interface CodeModeErrorOptions {
  /** Trusted cause, kept for the host; never shown to a model. */
  cause?: unknown;
  /**
   * Text approved for the model (for invalid programs, invalid arguments and capability failures only):
   * short, printable and free of secrets.
   */
  detail?: string;
  /** What the failed program printed (see {@link CodeModeError.output}). */
  output?: string;
}

/** A classified CodeMode failure. `message` is host-facing; `detail` (if any) is model-safe. */
export class CodeModeError extends Error {
  /** The classification. */
  readonly code: ErrorCode;
  /** Model-safe detail, if approved. */
  readonly detail: string | undefined;
  /**
   * What the failed program printed before it ended: its last 8 KiB, led by `[N bytes dropped]` when it
   * printed more. Undefined when it printed nothing or never ran. Program output, so model-visible.
   */
  readonly output: string | undefined;
  /** Creates a classified error. */
  constructor(code: ErrorCode, message: string, options: CodeModeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CodeModeError";
    this.code = code;
    this.detail = options.detail;
    this.output = options.output;
  }
}

/** Whether `err` is a {@link CodeModeError}, optionally of the given code. */
export function isCodeModeError(err: unknown, code?: ErrorCode): err is CodeModeError {
  return err instanceof CodeModeError && (code === undefined || err.code === code);
}
