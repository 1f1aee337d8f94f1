/**
 * Inspecting what a handler or an authorizer throws or returns without running its code. A Proxy runs
 * its traps on almost every operation — `instanceof` (getPrototypeOf), `Array.isArray` (a revoked one
 * throws), property reads, `Object.keys` (ownKeys, then getOwnPropertyDescriptor per key) — and a trap
 * may throw, or return two million keys that V8 then validates for seconds. So a Proxy, or an object
 * that inherits from one, is "opaque": the host never looks inside it and classifies it as it is.
 *
 * Everything here uses only operations that cannot run code of the value's author on an ordinary
 * object: `util.types.isProxy`, `Object.getPrototypeOf` and `Object.getOwnPropertyDescriptor` (which
 * reads a getter without calling it).
 *
 * @module
 */
import { types } from "node:util";

/** How many prototypes an inspected value may have before it is treated as opaque. */
const MAX_CHAIN = 64;

/**
 * Whether `v` is an object the host must not look into: a Proxy (revoked or not), or an object with a
 * Proxy on its prototype chain (longer than {@link MAX_CHAIN} counts too). Primitives are never opaque.
 */
export function isOpaque(v: unknown): boolean {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return false;
  if (isProxy(v)) return true;
  let o: object | null = Object.getPrototypeOf(v);
  // The usual chains end at intrinsics that are never proxies: one check for plain data.
  for (let i = 0; i < MAX_CHAIN && o !== null; i++) {
    if (o === Object.prototype || o === Array.prototype) return false;
    if (isProxy(o)) return true;
    o = Object.getPrototypeOf(o);
  }
  return o !== null;
}

const isProxy = types.isProxy;

/**
 * `v instanceof C` for a class of ours, decided from the prototype chain without running any trap or
 * `Symbol.hasInstance`: false for an opaque value.
 */
export function isInstance(v: unknown, C: abstract new (...args: never[]) => unknown): boolean {
  if (v === null || (typeof v !== "object" && typeof v !== "function") || isOpaque(v)) return false;
  const target = C.prototype;
  for (let o = Object.getPrototypeOf(v); o !== null; o = Object.getPrototypeOf(o)) {
    if (o === target) return true;
  }
  return false;
}

/**
 * The value of `v`'s own data property `key`, or undefined when `v` is not an object, is opaque, or has
 * no such property or only an accessor (a getter is never called).
 */
export function ownData(v: unknown, key: string): unknown {
  if (v === null || (typeof v !== "object" && typeof v !== "function") || isOpaque(v)) return undefined;
  const d = Object.getOwnPropertyDescriptor(v, key);
  return d !== undefined && "value" in d ? d.value : undefined;
}
