/**
 * Hostile handler objects in the containment corpus (issue 22, class 4): programs that call harness
 * capabilities whose handlers throw or return what a host should never trust — Proxies whose traps
 * throw, an Error wrapped in one, a revoked Proxy, objects whose getters throw, a Proxy listing two
 * million keys, a Map whose iterator never ends — once or in a loop, and must end as the capability's
 * failure on every executor, within the deadline and without stalling the host. The capabilities are
 * registered by {@link registerHostileHandlers} (the harness calls it), so the programs are harness-only.
 *
 * @module
 */
import { type Builder, t } from "../../mod.ts";
import { type HostileProgram, main } from "./corpus_kit.ts";

/** Traps that throw whenever they run (the harness server never lets them run: see src/core/opaque.ts). */
const THROWING: ProxyHandler<object> = Object.fromEntries(
  ["get", "has", "ownKeys", "getOwnPropertyDescriptor", "getPrototypeOf", "apply", "defineProperty"].map((
    name,
  ) => [name, () => {
    throw new Error(`trap ${name} ran`);
  }]),
);

/** What each hostile handler hands over, by capability name (all under `hostile.`). */
const HANDLERS: Record<string, () => unknown> = {
  throw_proxy: () => {
    throw new Proxy({}, THROWING);
  },
  throw_error_proxy: () => {
    throw new Proxy(new Error("wrapped"), THROWING);
  },
  throw_revoked: () => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    throw r.proxy;
  },
  throw_getters: () => {
    const boom = () => {
      throw new Error("getter ran");
    };
    throw Object.defineProperties({}, {
      message: { get: boom },
      name: { get: boom },
      toString: { get: boom },
      [Symbol.toPrimitive]: { get: boom },
    });
  },
  return_proxy: () => ({ items: new Proxy([1, 2, 3], THROWING) }),
  return_revoked: () => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  },
  return_keys_proxy: () => ({
    items: [],
    // Two million keys, listed only if asked: V8 alone takes seconds to validate such an ownKeys list.
    m: new Proxy({}, {
      ownKeys: () => Array.from({ length: 2_000_000 }, (_, i) => `k${i}`),
      getOwnPropertyDescriptor: () => ({ value: 1, enumerable: true, configurable: true }),
    }),
  }),
  return_endless_map: () => {
    class Endless extends Map<string, number> {
      override *[Symbol.iterator](): MapIterator<[string, number]> {
        for (let i = 0;; i++) yield [`k${i}`, i];
      }
    }
    return { items: [], m: new Endless([["a", 1]]) };
  },
};

/** Registers the `hostile.*` capabilities on the harness server. */
export function registerHostileHandlers(builder: Builder): void {
  for (const [name, make] of Object.entries(HANDLERS)) {
    builder.register({
      id: `harness.hostile.${name}`,
      name: `hostile.${name}`,
      summary: `A handler that hands over a hostile object (${name.replaceAll("_", " ")})`,
      searchTerms: ["hostile handler"],
      output: t.struct({ items: t.optional(t.list(t.int())), m: t.optional(t.dict(t.int())) }),
      handler: make as never,
    });
  }
}

const FAIL = ["capability_failure"] as const;

/** One program per hostile handler. */
export const HANDLER_OBJECTS: readonly HostileProgram[] = [
  ...Object.keys(HANDLERS).map((name): HostileProgram => ({
    name: `handler-${name.replaceAll("_", "-")}`,
    kind: "native",
    source: main(`return hostile.${name}()`),
    // A Map is read through the intrinsic iterator: its one real entry, whatever its class yields.
    expect: name === "return_endless_map" ? ["ok"] : [...FAIL],
    why: `the handler ${name.replaceAll("_", " ")}: classified without running its traps or iterator`,
    harnessOnly: true,
  })),
];
