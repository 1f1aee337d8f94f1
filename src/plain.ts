/**
 * Plain-object helpers for values that come from outside (handler results, decoded worker data):
 * what counts as a record, and how to write a key without reaching the prototype chain.
 *
 * @module
 */

/** Whether `v` is a plain object (its prototype is `Object.prototype` or null), not an array or class. */
export function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Sets an own enumerable property, including `__proto__`, without touching the prototype chain. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * A fresh object without a prototype, for maps built from untrusted keys: `__proto__`, `constructor` or
 * `toString` set on it are plain data, and nothing inherited can be read through it.
 */
export function nullRecord(): Record<string, unknown> {
  return Object.create(null);
}
