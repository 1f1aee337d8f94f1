/**
 * The model-facing texts of failed tool calls: one short fixed text per error code, plus the approved
 * detail after a colon for the three codes that carry one. Nothing else from an error reaches a client.
 *
 * @module
 */
import { type ErrorCode, isCodeModeError } from "../errors.ts";

/** The fixed text of each error code, as a client sees it in a tool result with `isError: true`. */
export const ERROR_TEXTS: Readonly<Record<ErrorCode, string>> = Object.freeze({
  invalid_registration: "server misconfigured",
  unauthenticated: "unauthenticated",
  not_found: "capability not found",
  invalid_program: "invalid program",
  invalid_arguments: "invalid arguments",
  permission_denied: "permission denied",
  policy_failure: "authorization policy failed",
  resource_limit: "resource limit exceeded",
  capability_failure: "capability failed",
  internal: "internal error",
});

/** How the detail of a program's own `fail(...)` starts (the runner's `PROGRAM_FAILED_PREFIX`). */
const PROGRAM_FAILED_TEXT = "program failed: ";

/** The text of a call that was cancelled by the client (the SDK usually drops the answer). */
export const CANCELLED_TEXT = "request cancelled";

/**
 * The codes whose text may be followed by `: ` and the error's approved detail. A `resource_limit`
 * detail names the budget and its value (`maxNativeCalls exceeded (limit: 100 capability calls): ...`):
 * the host's public limits, which the model needs to fix its program.
 */
export const DETAIL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "invalid_program",
  "invalid_arguments",
  "resource_limit",
  "capability_failure",
]);

/**
 * The longest detail forwarded, in UTF-16 code units. The core already bounds details; this is a second
 * line so a misbehaving custom service cannot flood a model's context.
 */
export const MAX_DETAIL_LENGTH = 2_048;

// Control characters other than tab and newline never reach a client (lone surrogates are replaced).
const UNSAFE_CHARS = /[^\P{Cc}\t\n]/gu;

function cleanDetail(detail: unknown): string | undefined {
  if (typeof detail !== "string") return undefined;
  let text = detail.toWellFormed().replace(UNSAFE_CHARS, "").trim();
  if (text === "") return undefined;
  if (text.length > MAX_DETAIL_LENGTH) text = text.slice(0, MAX_DETAIL_LENGTH - 1).toWellFormed() + "…";
  return text;
}

/**
 * The model-facing text of a failure: the fixed text of its code, with `: detail` only for
 * `invalid_program`, `invalid_arguments`, `resource_limit` and `capability_failure` errors that carry a
 * detail. Anything
 * that is not a `CodeModeError` reads as `internal error`; a failure caused by cancellation reads as
 * {@link CANCELLED_TEXT}.
 */
export function errorText(err: unknown, signal?: AbortSignal): string {
  if (signal?.aborted && !isCodeModeError(err)) return CANCELLED_TEXT;
  if (!isCodeModeError(err)) return ERROR_TEXTS.internal;
  const base = ERROR_TEXTS[err.code] ?? ERROR_TEXTS.internal;
  if (!DETAIL_CODES.has(err.code)) return base;
  const detail = cleanDetail(err.detail);
  if (detail === undefined) return base;
  // A program's own fail() says so itself ("program failed: customer missing"): prefixing "invalid
  // program" would tell a model to rewrite a program that did what it meant to.
  if (err.code === "invalid_program" && detail.startsWith(PROGRAM_FAILED_TEXT)) return detail;
  return `${base}: ${detail}`;
}

/**
 * Printed output as a client may see it: well-formed, without control characters other than tab and
 * newline, and bounded (the core keeps the last 8 KiB; this is a second line for a custom service).
 */
export function cleanOutput(output: string): string | undefined {
  if (typeof output !== "string") return undefined;
  let text = output.toWellFormed().replace(UNSAFE_CHARS, "");
  if (text.length > MAX_OUTPUT_LENGTH) {
    text = "…" + text.slice(text.length - MAX_OUTPUT_LENGTH + 1).toWellFormed();
  }
  return text === "" ? undefined : text;
}

/** The longest printed output forwarded, in UTF-16 code units (the core's 8 KiB with its dropped line). */
export const MAX_OUTPUT_LENGTH: number = 8_192 + 64;

/** The text of a failed `execute`, followed by what the program printed before it failed (if anything). */
export function withOutput(text: string, output: string | undefined): string {
  return output === undefined ? text : `${text}\n\nprinted output:\n${output}`;
}
