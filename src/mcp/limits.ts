/**
 * Per-subject rate and quota on `execute` for the CodeMode server (`deno task serve --http`, `deploy.ts`),
 * through the same limits module as the gateway: the environment states the limits, and the service that
 * answers `execute` checks the calling subject before the program runs. A refused program never starts;
 * its answer is `resource limit exceeded: rate limited: retry after N s (rule "execute rate")`.
 *
 * @module
 */
import type { Subject } from "../../authz.ts";
import { CodeModeError } from "../errors.ts";
import {
  type LimitRule,
  type Limits,
  type LimitsSettings,
  parsePer,
  parseResetTime,
  QUOTA_UNITS,
  RATE_UNITS,
  refusalText,
} from "../limits/mod.ts";
import type { Service } from "./service.ts";

/** The environment variables of the execute limits (all optional; none set means no limits). */
export const EXECUTE_LIMITS_ENV = Object.freeze({
  /** Token-bucket rate of `execute` per subject, `N/s|min|h`. */
  rate: "CODEMODE_EXECUTE_RATE",
  /** The bucket's depth (default: the rate's count). */
  burst: "CODEMODE_EXECUTE_BURST",
  /** Programs per subject per window, `N/min|h|day`. */
  quota: "CODEMODE_EXECUTE_QUOTA",
  /** UTC time `HH:MM` the quota window resets at (default 00:00). */
  quotaReset: "CODEMODE_EXECUTE_QUOTA_RESET",
  /** `memory` (default) or `redis://host:port/db`, shared by every instance. */
  store: "CODEMODE_LIMITS_STORE",
  /** `deny` (default) or `allow`: what a program gets when the store cannot answer. */
  onStoreError: "CODEMODE_LIMITS_ON_STORE_ERROR",
});

/** Names of the rules the environment states, as refusals show them. */
export const EXECUTE_RULES = Object.freeze({ rate: "execute rate", quota: "execute quota" });

/**
 * The limits the environment states, or `undefined` when neither a rate nor a quota is set. Throws an
 * `Error` naming the variable for a malformed value.
 */
export function executeLimitsFromEnv(env: (name: string) => string | undefined): LimitsSettings | undefined {
  const read = (name: string) => {
    const v = env(name)?.trim();
    return v === undefined || v === "" ? undefined : v;
  };
  const fail = (name: string, problem: string): never => {
    throw new Error(`${name}: ${problem}`);
  };
  const all = { clients: ["*"], tools: ["*"], downstreams: ["*"] };
  const rules: LimitRule[] = [];
  const rateText = read(EXECUTE_LIMITS_ENV.rate);
  const burstText = read(EXECUTE_LIMITS_ENV.burst);
  if (rateText !== undefined) {
    const rate = parsePer(rateText, RATE_UNITS);
    if (typeof rate === "string") fail(EXECUTE_LIMITS_ENV.rate, rate);
    let burst: number | undefined;
    if (burstText !== undefined) {
      burst = Number(burstText);
      if (!/^\d{1,10}$/.test(burstText) || burst < 1) {
        fail(EXECUTE_LIMITS_ENV.burst, "must be a whole number ≥ 1");
      }
    }
    rules.push({
      name: EXECUTE_RULES.rate,
      ...all,
      rate: rate as Exclude<typeof rate, string>,
      ...(burst === undefined ? {} : { burst }),
    });
  } else if (burstText !== undefined) fail(EXECUTE_LIMITS_ENV.burst, `needs ${EXECUTE_LIMITS_ENV.rate}`);
  const quotaText = read(EXECUTE_LIMITS_ENV.quota);
  const resetText = read(EXECUTE_LIMITS_ENV.quotaReset);
  if (quotaText !== undefined) {
    const quota = parsePer(quotaText, QUOTA_UNITS);
    if (typeof quota === "string") fail(EXECUTE_LIMITS_ENV.quota, quota);
    const reset = resetText === undefined ? undefined : parseResetTime(resetText);
    if (typeof reset === "string") fail(EXECUTE_LIMITS_ENV.quotaReset, reset);
    rules.push({
      name: EXECUTE_RULES.quota,
      ...all,
      quota: quota as Exclude<typeof quota, string>,
      ...(reset === undefined ? {} : { quotaResetMs: reset as number }),
    });
  } else if (resetText !== undefined) {
    fail(EXECUTE_LIMITS_ENV.quotaReset, `needs ${EXECUTE_LIMITS_ENV.quota}`);
  }
  const store = read(EXECUTE_LIMITS_ENV.store) ?? "memory";
  if (store !== "memory" && !/^rediss?:\/\/[^/\s]+(\/\d{1,2})?$/.test(store)) {
    fail(EXECUTE_LIMITS_ENV.store, `must be "memory" or redis://host:port/db`);
  }
  const action = read(EXECUTE_LIMITS_ENV.onStoreError) ?? "deny";
  if (action !== "deny" && action !== "allow") {
    fail(EXECUTE_LIMITS_ENV.onStoreError, 'must be "deny" or "allow"');
  }
  if (rules.length === 0) return undefined;
  return Object.freeze({ store, onStoreError: action as "deny" | "allow", rules: Object.freeze(rules) });
}

/**
 * `service` with `execute` checked per subject first: an admitted program runs as before; a refused one
 * rejects at once with `resource_limit` whose detail says which limit, which rule and when to retry.
 */
export function limitedService(service: Service, limits: Pick<Limits, "check">): Service {
  return {
    search: (query) => service.search(query),
    describe: (name) => service.describe(name),
    ...(service.capabilities === undefined ? {} : { capabilities: () => service.capabilities!() }),
    async execute(subject: Subject, source, options) {
      const admission = await limits.check({ client: subject.id, tool: "execute", downstream: "codemode" });
      if (admission.ok) {
        try {
          return await service.execute(subject, source, options);
        } finally {
          admission.release();
        }
      }
      const detail = "refusal" in admission
        ? refusalText(admission.refusal)
        : "limits unavailable: retry after 1 s";
      throw new CodeModeError("resource_limit", `execute: ${detail}`, { detail });
    },
  };
}
