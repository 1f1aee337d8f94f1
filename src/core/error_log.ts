/**
 * What a host sees of a failing capability when it set no `onError`: the first failure of each capability
 * is written to stderr with its cause, then at most once a minute per capability, so a handler that
 * throws is found at once without a failing loop flooding the log. A host's own `onError` replaces it.
 *
 * @module
 */
import type { ErrorEvent, ErrorHook } from "./server.ts";
import { isOpaque, ownData } from "./opaque.ts";

/** How long after logging a capability's failure its next failures are not logged (one minute). */
export const FAILURE_LOG_INTERVAL_MS = 60_000;

/** Where the default log writes (stderr), replaceable for tests. */
export type FailureWriter = (message: string) => void;

const toStderr: FailureWriter = (message) => console.error(message);

/** The longest cause text logged, so a handler's huge message cannot flood the log. */
const MAX_CAUSE_CHARS = 4_000;

// V8 gives every error an own `stack` accessor, the same native getter for all of them: calling that one
// runs none of the thrown value's code, while a `stack` getter of its own might.
const STACK_GETTER = Object.getOwnPropertyDescriptor(new Error(), "stack")?.get;

function intrinsicStack(v: object): string | undefined {
  const d = Object.getOwnPropertyDescriptor(v, "stack");
  if (d === undefined || STACK_GETTER === undefined || d.get !== STACK_GETTER) return undefined;
  // V8 may format the stack lazily, reading `name` and `message` then: only when neither is a getter.
  for (let o: object | null = v, i = 0; o !== null && i < 64; o = Object.getPrototypeOf(o), i++) {
    for (const key of ["name", "message"]) {
      const p = Object.getOwnPropertyDescriptor(o, key);
      if (p !== undefined && !("value" in p)) return undefined;
    }
  }
  const stack = Reflect.apply(STACK_GETTER, v, []);
  return typeof stack === "string" ? stack : undefined;
}

/**
 * The text of a thrown value, read without running any of its code (a handler may throw a Proxy or an
 * object with getters: printing it with `console.error` would call them): its own `stack`, else `name:
 * message`, and its own `cause` the same way, two levels deep.
 */
export function causeText(cause: unknown, depth = 0): string {
  if (cause === null || (typeof cause !== "object" && typeof cause !== "function")) {
    return typeof cause === "symbol" ? cause.toString() : String(cause);
  }
  if (isOpaque(cause)) return "[an object the host does not inspect: a Proxy, or one on its prototype chain]";
  const str = (key: string) => {
    const v = ownData(cause, key);
    return typeof v === "string" ? v : undefined;
  };
  const ctor = ownData(Object.getPrototypeOf(cause), "constructor");
  const kind = str("name") ?? (typeof ctor === "function" ? ownData(ctor, "name") : undefined);
  const head = `${typeof kind === "string" ? kind : "object"}: ${str("message") ?? "(no message)"}`;
  let text = str("stack") ?? intrinsicStack(cause) ?? head;
  const inner = ownData(cause, "cause");
  if (inner !== undefined && depth < 2) text += `\n  caused by ${causeText(inner, depth + 1)}`;
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS)}...` : text;
}

/**
 * The default {@link ErrorHook}: logs the host's own faults — a handler that threw or returned a value
 * that does not fit its output, a policy that crashed — never a model's mistakes (invalid arguments, a
 * denial, a budget), once per capability per {@link FAILURE_LOG_INTERVAL_MS}.
 */
export function firstFailureLog(
  write: FailureWriter = toStderr,
  now: () => number = () => performance.now(),
): ErrorHook {
  const logged = new Map<string, number>();
  return (event: ErrorEvent) => {
    const name = event.capability?.name;
    if (name === undefined || !hostFault(event)) return;
    const at = now();
    const last = logged.get(name);
    if (last !== undefined && at - last < FAILURE_LOG_INTERVAL_MS) return;
    logged.set(name, at);
    const what = event.phase === "handler"
      ? "its handler threw"
      : event.phase === "result"
      ? "its handler returned a value that does not match its output type"
      : "its authorization policy failed";
    write(
      `codemode: capability ${name} failed: ${what} (execution ${event.executionId}, subject ` +
        `${JSON.stringify(event.subject.id)}). The model saw "${event.error.code}" without this cause; ` +
        "set the builder's onError to receive every failure (this log shows each capability's first, " +
        `then at most one a minute). Cause: ${causeText(event.error.cause ?? event.error)}`,
    );
  };
}

// A handler's failure (`capability_failure`, or `internal` for a programming error such as a TypeError),
// or a policy's; a denial, bad arguments or a budget is the program's doing, not the host's.
function hostFault(event: ErrorEvent): boolean {
  if (event.phase === "handler" || event.phase === "result") {
    return event.code === "capability_failure" || event.code === "internal";
  }
  return event.phase === "authorize" && (event.code === "policy_failure" || event.code === "internal");
}
