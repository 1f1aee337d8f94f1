/**
 * Prometheus metrics of the CodeMode server's executor pool, served at `GET /metrics` by the HTTP
 * handler. Each scrape reads the pool's live counters; nothing is sampled in between. The registry is
 * the handler's own (no process-global state), so several servers and tests coexist.
 *
 * @module
 */
import { Counter, Gauge, Registry } from "prom-client";
import type { PoolHealth, PoolStats } from "../executor/mod.ts";

/** What the metrics read: a worker or process pool. */
export interface MeteredPool {
  /** Live counters. */
  stats(): PoolStats;
  /** `degraded` while a sandbox that did not stop holds a slot. */
  health(): PoolHealth;
}

/** A scrape: the exposition text and its content type. */
export interface MetricsScrape {
  /** Prometheus text exposition format. */
  readonly body: string;
  /** The `content-type` to answer with. */
  readonly contentType: string;
}

/** Renders a scrape. */
export type MetricsSource = () => Promise<MetricsScrape>;

type Reading = (s: PoolStats, h: PoolHealth) => number;

const GAUGES: readonly [string, string, Reading][] = [
  [
    "codemode_executor_degraded",
    "1 while a sandbox that did not stop when asked holds a slot.",
    (_, h) => h.status === "ok" ? 0 : 1,
  ],
  [
    "codemode_executor_stuck_sandboxes",
    "Slots held by sandboxes that did not stop when asked.",
    (_, h) => h.stuck,
  ],
  ["codemode_executor_slots_max", "The slot bound (maxConcurrentExecutions).", (_, h) => h.max],
  [
    "codemode_executor_slots_live",
    "Slots in use: spawning, fresh, idle, busy, draining or stopping.",
    (s) => s.live,
  ],
  ["codemode_executor_sandboxes_busy", "Sandboxes running an execution.", (s) => s.busy],
  ["codemode_executor_sandboxes_idle", "Sandboxes kept for a subject between executions.", (s) => s.idle],
  ["codemode_executor_waiting", "Executions waiting for a slot.", (s) => s.waiting],
];

const COUNTERS: readonly [string, string, Reading][] = [
  ["codemode_executor_executions_total", "Executions started in a sandbox.", (s) => s.executions],
  [
    "codemode_executor_refused_total",
    "Executions refused because their subject had too many waiting.",
    (s) => s.refused,
  ],
  ["codemode_executor_spawned_total", "Sandboxes spawned.", (s) => s.spawned],
  ["codemode_executor_discarded_total", "Sandboxes ended.", (s) => s.discarded],
  ["codemode_executor_stuck_total", "Sandboxes that ever failed to stop when asked.", (s) => s.everStuck],
];

/** Builds the `/metrics` source of a pool. */
export function poolMetrics(pool: MeteredPool): MetricsSource {
  const registry = new Registry();
  let reading: { stats: PoolStats; health: PoolHealth } | undefined;
  const read = () => reading ??= { stats: pool.stats(), health: pool.health() };
  for (const [name, help, value] of GAUGES) {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const r = read();
        this.set(value(r.stats, r.health));
      },
    });
  }
  for (const [name, help, value] of COUNTERS) {
    // A counter mirrors the pool's own monotonic count: it moves by the difference since the last scrape.
    let seen = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const r = read();
        const now = value(r.stats, r.health);
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  }
  return async () => {
    reading = undefined; // one consistent reading per scrape
    try {
      return { body: await registry.metrics(), contentType: registry.contentType };
    } finally {
      reading = undefined;
    }
  };
}
