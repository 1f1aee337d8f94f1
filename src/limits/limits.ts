/**
 * The evaluator: finds the rules a call matches, asks the store to decide all their counters at once,
 * and picks the most restrictive refusal. It owns the store's lifetime across reloads (a reload that
 * keeps the store keeps every counter of every rule it keeps) and watches the store's health: a failed
 * or slow store answer is an error (`on_store_error` decides the call), marks the limits degraded, and a
 * background probe clears that as soon as the store answers again.
 *
 * @module
 */
import type { Admission, LimitKind, LimitRule, Refusal, StoreErrorAction, Subject } from "./domain.ts";
import { MemoryStore } from "./memory.ts";
import { type CompiledRule, compileRule } from "./rules.ts";
import type { LimitRequest, LimitStore, StoreVerdict } from "./store.ts";

/** The limits' settings (the gateway's `limits:` block, validated). */
export interface LimitsSettings {
  /** `memory`, or a `redis://host:port/db` URL shared by replicas. */
  readonly store: string;
  /** What a call gets when the store cannot answer (default `deny`). */
  readonly onStoreError: StoreErrorAction;
  /** A store answer slower than this is a store error (default 50). */
  readonly storeTimeoutMs?: number;
  /** How long a Redis concurrency slot outlives a replica that stopped renewing it (default 30000). */
  readonly leaseMs?: number;
  /** The rules, in file order. */
  readonly rules: readonly LimitRule[];
}

/** Opens the store a settings' `store` names (the Redis adapter is loaded only when one is named). */
export type StoreOpener = (settings: LimitsSettings) => Promise<LimitStore>;

/** Events of {@link Limits}, for the audit log's companions: metrics and the operator log. */
export interface LimitsEvents {
  /** A call was refused by `refusal`. */
  readonly refused?: (refusal: Refusal) => void;
  /** The store failed or was slow; `action` is what the call got. */
  readonly storeError?: (action: StoreErrorAction, cause: unknown) => void;
  /** The store's health changed. */
  readonly health?: (status: "ok" | "degraded") => void;
}

/** Options of {@link Limits.open}. */
export interface LimitsOptions {
  /** Opens stores (default: {@link openStore}). */
  readonly openStore?: StoreOpener;
  /** Event hooks. */
  readonly events?: LimitsEvents;
  /** How often a degraded store is probed (default 1000 ms). */
  readonly probeEveryMs?: number;
}

/** The default store timeout: a store slower than this counts as down. */
export const DEFAULT_STORE_TIMEOUT_MS = 50;
/** The default lease of a Redis concurrency slot. */
export const DEFAULT_LEASE_MS = 30_000;

/** Opens `memory` in-process, and a `redis://` URL with the Redis adapter (loaded on first use). */
export async function openStore(settings: LimitsSettings): Promise<LimitStore> {
  if (settings.store === "memory") return new MemoryStore();
  const { RedisStore } = await import("./redis.ts");
  const store = new RedisStore(settings.store, { leaseMs: settings.leaseMs ?? DEFAULT_LEASE_MS });
  // A gateway starting while Redis is down still starts: its calls get on_store_error until it is up.
  await store.ready(1_000);
  return store;
}

/** The counters one call needs, and which rule and limit each belongs to. */
interface Plan {
  readonly requests: readonly LimitRequest[];
  readonly owners: readonly { readonly rule: string; readonly kind: LimitKind }[];
}

const EMPTY_PLAN: Plan = Object.freeze({ requests: [], owners: [] });
const NOTHING = () => {};
const FREE: Admission = Object.freeze({ ok: true, release: NOTHING });
const STORE_DENIED: Admission = Object.freeze({ ok: false, storeError: true });
const STORE_ALLOWED: Admission = Object.freeze({ ok: true, storeError: true, release: NOTHING });
/** Plans cached per client, tool and downstream; cleared when full (client input must not grow it). */
const MAX_PLANS = 10_000;

function requestsOf(c: CompiledRule, client: string): { requests: LimitRequest[]; kinds: LimitKind[] } {
  const r = c.rule;
  const requests: LimitRequest[] = [];
  const kinds: LimitKind[] = [];
  if (r.rate !== undefined) {
    requests.push({
      kind: "rate",
      key: `${c.id}:r:${client}`,
      burst: r.burst ?? r.rate.count,
      count: r.rate.count,
      periodMs: r.rate.periodMs,
    });
    kinds.push("rate");
  }
  if (r.concurrency !== undefined) {
    requests.push({ kind: "concurrency", key: `${c.id}:c:${client}`, limit: r.concurrency });
    kinds.push("concurrency");
  }
  if (r.quota !== undefined) {
    requests.push({
      kind: "quota",
      key: `${c.id}:q:${client}`,
      limit: r.quota.count,
      periodMs: r.quota.periodMs,
      offsetMs: r.quotaResetMs ?? 0,
    });
    kinds.push("quota");
  }
  return { requests, kinds };
}

/** Rate and quota limits of every rule a client's calls match, checked against one store. */
export class Limits {
  #settings: LimitsSettings;
  #rules: readonly CompiledRule[];
  #store: LimitStore;
  readonly #open: StoreOpener;
  readonly #events: LimitsEvents;
  readonly #probeEveryMs: number;
  #plans = new Map<string, Plan>();
  #healthy = true;
  #probe: ReturnType<typeof setInterval> | undefined;
  #closed = false;

  private constructor(settings: LimitsSettings, store: LimitStore, options: LimitsOptions) {
    this.#settings = settings;
    this.#rules = settings.rules.map(compileRule);
    this.#store = store;
    this.#open = options.openStore ?? openStore;
    this.#events = options.events ?? {};
    this.#probeEveryMs = options.probeEveryMs ?? 1_000;
  }

  /** Compiles the rules and opens the store (a Redis store connects in the background). */
  static async open(settings: LimitsSettings, options: LimitsOptions = {}): Promise<Limits> {
    // Invalid rules throw before a store is opened.
    settings.rules.forEach(compileRule);
    const store = await (options.openStore ?? openStore)(settings);
    return new Limits(settings, store, options);
  }

  /** The settings in force. */
  get settings(): LimitsSettings {
    return this.#settings;
  }

  /** The store in force (diagnostics and tests). */
  get store(): LimitStore {
    return this.#store;
  }

  /** `degraded` from a store error until the store answers again. */
  get health(): "ok" | "degraded" {
    return this.#healthy ? "ok" : "degraded";
  }

  /**
   * Applies new settings to calls that start from now on. The store is kept when it names the same one
   * (so a kept rule keeps its counters; a changed rule has a new fingerprint and starts fresh), else the
   * new one is opened before the old one is closed.
   */
  async reconfigure(next: LimitsSettings): Promise<void> {
    const rules = next.rules.map(compileRule);
    let old: LimitStore | undefined;
    if (next.store !== this.#settings.store || next.leaseMs !== this.#settings.leaseMs) {
      const store = await this.#open(next);
      old = this.#store;
      this.#store = store;
      this.#setHealthy(true);
    }
    this.#settings = next;
    this.#rules = rules;
    this.#plans = new Map();
    await old?.close();
  }

  #plan(s: Subject): Plan {
    const cacheKey = `${s.client}\n${s.downstream}\n${s.tool}`;
    let plan = this.#plans.get(cacheKey);
    if (plan !== undefined) return plan;
    const requests: LimitRequest[] = [];
    const owners: { rule: string; kind: LimitKind }[] = [];
    const seen = new Set<string>();
    for (const c of this.#rules) {
      // Two rules that say the same thing share their counters: they must not spend them twice.
      if (seen.has(c.id) || !c.matches(s)) continue;
      seen.add(c.id);
      const made = requestsOf(c, s.client);
      requests.push(...made.requests);
      for (const kind of made.kinds) owners.push({ rule: c.rule.name, kind });
    }
    plan = requests.length === 0 ? EMPTY_PLAN : Object.freeze({ requests, owners });
    if (this.#plans.size >= MAX_PLANS) this.#plans.clear();
    this.#plans.set(cacheKey, plan);
    return plan;
  }

  /**
   * Checks one call against every rule it matches. Resolves at once to an admission (release it when
   * the call completes), a refusal by the most restrictive limit it failed (nothing spent), or a store
   * error decided by `on_store_error`. Never rejects.
   */
  check(subject: Subject): Promise<Admission> {
    const plan = this.#plan(subject);
    if (plan.requests.length === 0) return Promise.resolve(FREE);
    const store = this.#store;
    let answer: StoreVerdict | Promise<StoreVerdict>;
    try {
      answer = store.check(plan.requests);
    } catch (err) {
      return Promise.resolve(this.#failed(err));
    }
    if (answer instanceof Promise) return this.#settle(answer, plan, store);
    return Promise.resolve(this.#decide(answer, plan, store));
  }

  #decide(verdict: StoreVerdict, plan: Plan, store: LimitStore): Admission {
    if (!this.#healthy) this.#setHealthy(true);
    if (verdict.ok) {
      const leases = verdict.leases;
      if (leases.length === 0) return FREE;
      let released = false;
      return {
        ok: true,
        release: () => {
          if (released) return;
          released = true;
          store.release(leases);
        },
      };
    }
    // Most restrictive wins: the refusal the call would wait longest for.
    let worst = verdict.refused[0];
    for (const r of verdict.refused) if (r.retryAfterMs > worst.retryAfterMs) worst = r;
    const owner = plan.owners[worst.index];
    const refusal: Refusal = Object.freeze({
      kind: owner.kind,
      rule: owner.rule,
      retryAfterMs: worst.retryAfterMs,
    });
    this.#events.refused?.(refusal);
    return { ok: false, refusal };
  }

  async #settle(answer: Promise<StoreVerdict>, plan: Plan, store: LimitStore): Promise<Admission> {
    const timeoutMs = this.#settings.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<"slow">((resolve) => {
      // When the timer fires, an answer may already be waiting on the socket behind it (a busy event
      // loop runs timers first): one more turn lets it be read before the store is called slow.
      timer = setTimeout(() => timer = setTimeout(() => resolve("slow"), 0), timeoutMs);
    });
    try {
      const verdict = await Promise.race([answer, slow]);
      if (verdict === "slow") {
        // The script may still run: slots it grants after we gave up must go back.
        answer.then((v) => v.ok && v.leases.length > 0 && store.release(v.leases), NOTHING);
        return this.#failed(new Error(`the limits store took longer than ${timeoutMs} ms`));
      }
      return this.#decide(verdict, plan, store);
    } catch (err) {
      return this.#failed(err);
    } finally {
      clearTimeout(timer);
    }
  }

  #failed(cause: unknown): Admission {
    const action = this.#settings.onStoreError;
    this.#setHealthy(false);
    this.#events.storeError?.(action, cause);
    return action === "allow" ? STORE_ALLOWED : STORE_DENIED;
  }

  #setHealthy(healthy: boolean): void {
    if (healthy === this.#healthy) return;
    this.#healthy = healthy;
    this.#events.health?.(healthy ? "ok" : "degraded");
    if (healthy) {
      clearInterval(this.#probe);
      this.#probe = undefined;
    } else if (this.#probe === undefined && !this.#closed) {
      // Recovery must not wait for a call: an idle gateway reports healthy again on its own.
      this.#probe = setInterval(() => this.#runProbe(), this.#probeEveryMs);
    }
  }

  async #runProbe(): Promise<void> {
    const store = this.#store;
    const timeoutMs = this.#settings.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        store.ping(),
        new Promise((_, reject) => timer = setTimeout(() => reject(new Error("slow")), timeoutMs)),
      ]);
      if (store === this.#store && !this.#closed) this.#setHealthy(true);
    } catch {
      // Still down: the next tick tries again.
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the probe and closes the store. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#probe);
    this.#probe = undefined;
    await this.#store.close();
  }
}
