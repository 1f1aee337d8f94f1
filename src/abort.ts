/**
 * Racing host work against cancellation, shared by the dispatcher and the inline executor.
 *
 * @module
 */

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as the signal aborts, so the caller
 * never outlives its execution. The work itself keeps running (a handler cannot be stopped); a rejection
 * it produces after the abort is swallowed rather than reported as unhandled.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
