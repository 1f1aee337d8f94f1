/**
 * One generated family of hostile programs, run on one executor in a child host (see `harness.ts`) one
 * program at a time next to a normal stream, and the containment promises every family must keep:
 *
 * - the host survives and every program ends as its label says (the family decides what that means);
 * - each answer comes within the deadline + 100 ms (scaled only by the load other processes put on the
 *   machine, `tests/timing.ts`);
 * - the host's event loop never stalls more than 150 ms (inline included);
 * - the host's RSS grows by less than 3× the memory budget;
 * - the normal stream never fails;
 * - CPU is idle in the second second after the last answer.
 */
import assert from "node:assert/strict";
import { type Limits, resolveLimits } from "../../mod.ts";
import { executorProblems } from "../../src/core/mod.ts";
import { type ChildRun, type ExecutorName, type HostileRecord, runInChild } from "./harness.ts";
import { procAvailable } from "./proc.ts";
import { slack } from "../timing.ts";

const DEADLINE_SLACK_MS = 100;
const STALL_MS = 150;
const IDLE_CPU_SHARE = 0.15;

/** The three executors, with whether this machine can run each. */
export const EXECUTORS: readonly { name: ExecutorName; available: boolean }[] = [
  { name: "inline", available: true },
  { name: "worker", available: true },
  { name: "process", available: executorProblems("process").length === 0 },
];

/** Formats a byte count in MiB for messages. */
export const mib = (n: number): string => `${(n / 2 ** 20).toFixed(0)} MiB`;

/** How a family is run and judged. */
export interface FamilyCheck {
  /** Printed before the run's figures. */
  readonly label: string;
  readonly executor: ExecutorName;
  readonly limits: Partial<Limits>;
  /** The family's program names (registered in the corpus). */
  readonly programs: readonly string[];
  /** Why a record did not end as it should, or undefined when it did. */
  readonly wrongEnd: (record: HostileRecord) => string | undefined;
  /** What "ended as it should" means, for the failure message. */
  readonly wrongEndMessage: string;
  /** Which RSS figure the 3× budget bound applies to (default: the peak). */
  readonly rss?: "peak" | "after";
  /** The load other processes put on the machine when the test began (`loadFactor()`). */
  readonly external: number;
}

/** Runs the family in a child host and asserts every containment promise; returns the run. */
export async function checkFamily(check: FamilyCheck): Promise<ChildRun> {
  const run = await runInChild(
    {
      executor: check.executor,
      limits: check.limits,
      programs: [...check.programs],
      concurrency: 1,
      normalPauseMs: 20,
    },
    { timeoutMs: 150_000 },
  );
  assert.ok(
    run.hostSurvived,
    `the host died (exit ${run.exitCode}) with in flight: ${run.inFlight.join(", ")}\n${run.stderrTail}`,
  );
  const report = run.report!;
  const records = report.hostile;
  assert.equal(records.length, check.programs.length);
  const slowest = records.reduce((a, b) => (a.elapsedMs >= b.elapsedMs ? a : b));
  console.log(
    `[${check.label} ${check.executor}] slowest ${slowest.name} ${slowest.elapsedMs.toFixed(0)} ms, ` +
      `stall ${report.loopStallMaxMs.toFixed(0)} ms, rss ${mib(report.rssBaselineBytes)} → peak ` +
      `${mib(report.rssPeakBytes)} → after ${mib(report.rssAfterBytes)}, cpu ` +
      `${run.cpuFirstSecond?.toFixed(2)}/${run.cpuSecondSecond?.toFixed(2)}, ` +
      `load ${report.loadFactorMax.toFixed(1)}`,
  );
  assert.deepEqual(
    records.flatMap((r) => check.wrongEnd(r) ?? []),
    [],
    check.wrongEndMessage,
  );
  const limit = slack(DEADLINE_SLACK_MS, check.external);
  assert.deepEqual(
    records.filter((r) => r.overrunMs > limit).map((r) =>
      `${r.name}: deadline + ${r.overrunMs.toFixed(0)} ms`
    ),
    [],
    `answers later than the deadline + ${limit.toFixed(0)} ms`,
  );
  const stallBound = slack(STALL_MS, Math.max(check.external, report.loadFactorMax));
  assert.ok(
    report.loopStallMaxMs < stallBound,
    `event loop stalled ${report.loopStallMaxMs.toFixed(0)} ms (bound ${stallBound.toFixed(0)} ms)`,
  );
  const budget = resolveLimits(check.limits).maxMemoryBytes;
  const rss = check.rss === "after" ? report.rssAfterBytes : report.rssPeakBytes;
  assert.ok(
    rss - report.rssBaselineBytes < 3 * budget,
    `RSS grew ${mib(rss - report.rssBaselineBytes)} (${check.rss ?? "peak"}; budget ${mib(budget)})`,
  );
  assert.equal(report.normal.failures, 0, `normal executions failed: ${report.normal.failureSamples}`);
  if (procAvailable()) {
    assert.ok(
      run.cpuSecondSecond !== undefined && run.cpuSecondSecond < slack(IDLE_CPU_SHARE, check.external),
      `CPU not idle after the answers: ${run.cpuFirstSecond} then ${run.cpuSecondSecond} cores`,
    );
  }
  return run;
}
