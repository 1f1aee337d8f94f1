/**
 * Subjects and authorization decisions for CodeMode.
 *
 * An {@link Authorizer} decides every native call a program makes. It resolves to allow, rejects with a
 * {@link DeniedError} to deny, and any other rejection is a policy failure.
 *
 * @example
 * ```ts
 * import { allowAll, DeniedError, type Authorizer } from "@codemode/codemode/authz";
 *
 * const onlyAlice: Authorizer = {
 *   authorize(input) {
 *     if (input.subject.id !== "alice") throw new DeniedError("only alice");
 *   },
 * };
 * const everyone = allowAll();
 * ```
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** A stable, non-secret authenticated identity. An empty `id` means unauthenticated. */
export interface Subject {
  /** The subject identifier. */
  readonly id: string;
}

/** JSON-shaped scalar values of a canonical argument map. */
export type CanonicalScalar = string | number | boolean;

/** The input of one authorization decision. */
export interface AuthorizationInput {
  /** Trusted subject of the execution. */
  readonly subject: Subject;
  /** Stable policy identity of the capability. */
  readonly capabilityId: string;
  /** Dotted Starlark name of the capability. */
  readonly capabilityName: string;
  /**
   * Fresh canonical projection of the validated keyword arguments: absent optionals are absent.
   * Scalars for the seed's input matrix; composite inputs (lists, objects) appear as JSON values.
   */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Context passed to an authorizer. */
export interface AuthorizationContext {
  /** Aborted when the execution is cancelled or its deadline passes. */
  readonly signal: AbortSignal;
}

/** Decides native calls. */
export interface Authorizer {
  /**
   * Resolves (or returns) to allow; throws/rejects with {@link DeniedError} to deny; any other error is a
   * policy failure.
   */
  authorize(input: AuthorizationInput, ctx: AuthorizationContext): void | Promise<void>;
}

/** A recognized denial. */
export class DeniedError extends Error {
  /** Creates a denial; the message stays on the host side. */
  constructor(message = "permission denied", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DeniedError";
  }
}

/** Whether `err` is a {@link DeniedError}. */
export function isDenied(err: unknown): err is DeniedError {
  return err instanceof DeniedError;
}

/** An authorizer that permits every call whose arguments bind. Use only when every subject may call everything. */
export function allowAll(): Authorizer {
  return { authorize() {} };
}

const subjectStorage = new AsyncLocalStorage<Subject>();

/** Runs `fn` with `subject` as the current subject (for {@link currentSubject}). Does not authenticate. */
export function withSubject<T>(subject: Subject, fn: () => T): T {
  return subjectStorage.run(Object.freeze({ id: subject.id }), fn);
}

/** The subject installed by the nearest enclosing {@link withSubject}, if any. */
export function currentSubject(): Subject | undefined {
  return subjectStorage.getStore();
}
