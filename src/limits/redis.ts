/**
 * The shared store: counters in Redis, so every replica using the server enforces one limit. A check is
 * one Lua script (one round trip) that reads every counter a call needs on the server's clock, and
 * spends them only when all admit. Keys expire once idle (a full bucket, a past window, a slot set no
 * one renews). Concurrency slots are leases: an admitted call's slot is renewed while the replica lives
 * and released when the call completes; a replica that dies stops renewing, and its slots come back when
 * their lease runs out.
 *
 * @module
 */
import { Redis } from "ioredis";
import type { Lease, LimitRequest, LimitStore, StoreVerdict } from "./store.ts";

// KEYS: one per request. ARGV: lease ms, lease id, then four fields per request (kind and three numbers).
// Writes follow TIME, so the script is replicated by its effects (the default since Redis 5; asked for
// explicitly on older servers).
// Returns an empty array when admitted, else pairs (request index, retry-after ms) of the refusing ones.
const CHECK = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[1])
local leaseId = ARGV[2]
local refused = {}
local spend = {}
for i = 1, #KEYS do
  local at = 2 + (i - 1) * 4
  local kind = ARGV[at + 1]
  local a, b, c = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  local key = KEYS[i]
  if kind == 'r' then
    local v = redis.call('HMGET', key, 't', 'a')
    local tokens = a
    if v[1] then
      tokens = tonumber(v[1])
      local last = tonumber(v[2])
      if now > last then tokens = math.min(a, tokens + (now - last) * b / c) end
    end
    spend[i] = tokens
    if tokens < 1 then
      refused[#refused + 1] = i - 1
      refused[#refused + 1] = math.ceil((1 - tokens) * c / b)
    end
  elseif kind == 'q' then
    local shift = c % b
    local start = math.floor((now - shift) / b) * b + shift
    local wkey = key .. ':' .. start
    local used = tonumber(redis.call('GET', wkey) or '0')
    spend[i] = { wkey, start + b }
    if used >= a then
      refused[#refused + 1] = i - 1
      refused[#refused + 1] = math.max(1, start + b - now)
    end
  else
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    if redis.call('ZCARD', key) >= a then
      refused[#refused + 1] = i - 1
      refused[#refused + 1] = 1000
    end
  end
end
if #refused > 0 then return refused end
for i = 1, #KEYS do
  local at = 2 + (i - 1) * 4
  local kind = ARGV[at + 1]
  local a, b, c = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  local key = KEYS[i]
  if kind == 'r' then
    redis.call('HSET', key, 't', tostring(spend[i] - 1), 'a', now)
    redis.call('PEXPIRE', key, math.ceil(a * c / b) + 1000)
  elseif kind == 'q' then
    redis.call('INCR', spend[i][1])
    redis.call('PEXPIREAT', spend[i][1], spend[i][2] + 60000)
  else
    redis.call('ZADD', key, now + leaseMs, leaseId)
    redis.call('PEXPIRE', key, leaseMs * 2)
  end
end
return {}
`;

// KEYS: slot sets; ARGV: lease ms, then one lease id per key. Extends leases that still exist (XX: a slot
// that already expired is not brought back, it may have been given to another call since).
const RENEW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseMs = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + leaseMs, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], leaseMs * 2)
end
return #KEYS
`;

interface Scripts {
  limitsCheck(numKeys: number, ...args: (string | number)[]): Promise<number[]>;
  limitsRenew(numKeys: number, ...args: (string | number)[]): Promise<number>;
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** How long a concurrency slot lives without renewal. */
  readonly leaseMs: number;
  /** Prefix of every key (default `codemode:limits:`). */
  readonly prefix?: string;
  /** Longest wait for a connection (default 1000 ms). */
  readonly connectTimeoutMs?: number;
}

const KIND_CODE = { rate: "r", quota: "q", concurrency: "c" } as const;

/** Counters in Redis, shared by every replica using the same server and database. */
export class RedisStore implements LimitStore {
  /** Store kind. */
  readonly kind = "redis";
  readonly #client: Redis;
  readonly #scripts: Scripts;
  readonly #leaseMs: number;
  readonly #prefix: string;
  /** This replica's held slots: lease id → slot-set key. */
  readonly #held = new Map<string, string>();
  readonly #replica = crypto.randomUUID();
  #seq = 0;
  readonly #renewer: ReturnType<typeof setInterval>;

  /** Connects to `url` (`redis://host:port/db`) in the background; commands fail fast until connected. */
  constructor(url: string, options: RedisStoreOptions) {
    this.#leaseMs = options.leaseMs;
    this.#prefix = options.prefix ?? "codemode:limits:";
    this.#client = new Redis(url, {
      // Fail at once while disconnected: a queued check would stall the call past the store timeout.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeoutMs ?? 1_000,
      retryStrategy: (times: number) => Math.min(50 * times, 1_000),
      lazyConnect: false,
    });
    // Failures are reported per command (and seen by the evaluator); the client's events are noise.
    this.#client.on("error", () => {});
    this.#client.defineCommand("limitsCheck", { lua: CHECK });
    this.#client.defineCommand("limitsRenew", { lua: RENEW });
    this.#scripts = this.#client as unknown as Scripts;
    this.#renewer = setInterval(() => this.#renew(), Math.max(100, Math.floor(this.#leaseMs / 3)));
    Deno.unrefTimer(this.#renewer);
  }

  /** Resolves once connected, or after `timeoutMs` (the store then keeps trying in the background). */
  async ready(timeoutMs: number): Promise<boolean> {
    if (this.#client.status === "ready") return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onReady: (() => void) | undefined;
    try {
      return await new Promise<boolean>((resolve) => {
        onReady = () => resolve(true);
        this.#client.once("ready", onReady);
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
    } finally {
      clearTimeout(timer);
      if (onReady !== undefined) this.#client.off("ready", onReady);
    }
  }

  /** Decides every request in one script run (see {@link LimitStore.check}). */
  async check(requests: readonly LimitRequest[]): Promise<StoreVerdict> {
    const keys: string[] = [];
    const leaseId = `${this.#replica}:${++this.#seq}`;
    const args: (string | number)[] = [this.#leaseMs, leaseId];
    for (const r of requests) {
      keys.push(this.#prefix + r.key);
      if (r.kind === "rate") args.push(KIND_CODE.rate, r.burst, r.count, r.periodMs);
      else if (r.kind === "quota") args.push(KIND_CODE.quota, r.limit, r.periodMs, r.offsetMs);
      else args.push(KIND_CODE.concurrency, r.limit, 0, 0);
    }
    const reply = await this.#scripts.limitsCheck(keys.length, ...keys, ...args);
    if (reply.length > 0) {
      const refused = [];
      for (let i = 0; i < reply.length; i += 2) {
        refused.push({ index: Number(reply[i]), retryAfterMs: Number(reply[i + 1]) });
      }
      return { ok: false, refused };
    }
    const leases: Lease[] = [];
    for (const [i, r] of requests.entries()) {
      if (r.kind !== "concurrency") continue;
      leases.push({ key: keys[i], id: leaseId });
      this.#held.set(`${leaseId}\n${keys[i]}`, keys[i]);
    }
    return { ok: true, leases };
  }

  /** Gives back slots; a release that fails is recovered by lease expiry. */
  release(leases: readonly Lease[]): void {
    for (const l of leases) {
      this.#held.delete(`${l.id}\n${l.key}`);
      this.#client.zrem(l.key, l.id).catch(() => {});
    }
  }

  /** Resolves when Redis answers a PING. */
  async ping(): Promise<void> {
    await this.#client.ping();
  }

  async #renew(): Promise<void> {
    if (this.#held.size === 0 || this.#client.status !== "ready") return;
    const keys: string[] = [];
    const ids: string[] = [];
    for (const [k, key] of this.#held) {
      keys.push(key);
      ids.push(k.slice(0, k.indexOf("\n")));
    }
    try {
      await this.#scripts.limitsRenew(keys.length, ...keys, this.#leaseMs, ...ids);
    } catch {
      // Redis is down: the leases run out, as they must for a replica that cannot reach it.
    }
  }

  /**
   * Stops renewing and disconnects. Slots still held are released first (best effort), so a replica
   * that shuts down cleanly does not make others wait for its leases.
   */
  async close(): Promise<void> {
    clearInterval(this.#renewer);
    const held = [...this.#held].map(([k, key]) => ({ key, id: k.slice(0, k.indexOf("\n")) }));
    this.#held.clear();
    if (this.#client.status === "ready" && held.length > 0) {
      await Promise.allSettled(held.map((l) => this.#client.zrem(l.key, l.id)));
    }
    this.#client.disconnect();
  }

  /** Drops the connection without releasing anything (tests: a replica that dies). */
  kill(): void {
    clearInterval(this.#renewer);
    this.#held.clear();
    this.#client.disconnect();
  }
}
