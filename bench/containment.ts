/**
 * Containment figures for the note on issue 9: runs the hostile corpus (`tests/containment/corpus.ts`)
 * through the harness on each executor and prints Markdown tables.
 *
 * ```sh
 * deno run -A bench/containment.ts                          # load run: 50 at a time + normal stream, default limits
 * deno run -A bench/containment.ts --executors worker,inline --time 2000 --memory 16777216
 * deno run -A bench/containment.ts --attackers 50           # every hostile execution from its own subject
 * deno run -A bench/containment.ts --executors process --attackers 1,4,16   # one load run per count
 * deno run -A bench/containment.ts --each                   # one program at a time: which ones kill or overrun
 * deno run -A bench/containment.ts --each --programs issue-int-tower-comprehension,int-str-huge
 * ```
 *
 * Every run happens in a child process (see the harness), so a program that kills its host shows up in
 * the table instead of ending this script.
 *
 * @module
 */
import type { Limits } from "../mod.ts";
import { HOSTILE_CORPUS } from "../tests/containment/corpus.ts";
import {
  type ChildRun,
  diagnoseInChild,
  type Diagnosis,
  type ExecutorName,
  type HarnessReport,
  quantile,
  runInChild,
} from "../tests/containment/harness.ts";

interface Args {
  executors: ExecutorName[];
  each: boolean;
  programs?: string[];
  limits: Partial<Limits>;
  concurrency: number;
  rounds: number;
  /** Hostile subjects: one load run per count. */
  attackers: number[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    executors: ["inline", "worker", "process"],
    each: false,
    limits: {},
    concurrency: 50,
    rounds: 1,
    attackers: [1],
  };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i] ?? "";
    switch (argv[i]) {
      case "--executors":
        args.executors = value().split(",") as ExecutorName[];
        break;
      case "--each":
        args.each = true;
        break;
      case "--programs":
        args.programs = value().split(",");
        break;
      case "--time":
        args.limits = { ...args.limits, maxExecutionTime: Number(value()) };
        break;
      case "--memory":
        args.limits = { ...args.limits, maxMemoryBytes: Number(value()) };
        break;
      case "--concurrency":
        args.concurrency = Number(value());
        break;
      case "--rounds":
        args.rounds = Number(value());
        break;
      case "--attackers":
        args.attackers = value().split(",").map(Number);
        break;
      default:
        throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return args;
}

const mib = (bytes: number | undefined) => bytes === undefined ? "–" : (bytes / 2 ** 20).toFixed(0);
const ms = (n: number | undefined) => n === undefined ? "–" : n.toFixed(0);
const pct = (share: number | undefined) => share === undefined ? "–" : `${(share * 100).toFixed(0)}%`;

function printDiagnosis(executor: ExecutorName, rows: readonly Diagnosis[]): void {
  console.log(`\n### ${executor}: one program at a time\n`);
  console.log("| program | expected | outcome | elapsed ms | overrun ms | CPU after | note |");
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const row of rows) {
    const expected = HOSTILE_CORPUS.find((p) => p.name === row.name)?.expect.join("/") ?? "?";
    if (row.killedHost !== undefined) {
      const k = row.killedHost;
      const how = k.timedOut ? "HUNG (killed by harness)" : `HOST DIED exit ${k.exitCode} ${k.signal ?? ""}`;
      console.log(
        `| ${row.name} | ${expected} | **${how}** | – | – | – | ${k.stderr.replaceAll("|", "/")} |`,
      );
      continue;
    }
    const r = row.record!;
    // A sandbox that keeps a core busy after its answer was not stopped, whatever the host reported.
    const spinning = (r.cpuAfter ?? 0) > 0.5;
    const bad = !r.asExpected || r.overrunMs > 100 || spinning ? " **✗**" : "";
    const note = r.outcome === "ok" || r.asExpected ? "" : r.message.replaceAll("|", "/");
    console.log(
      `| ${r.name} | ${expected} | ${r.outcome}${bad} | ${ms(r.elapsedMs)} | ${ms(r.overrunMs)} | ` +
        `${pct(r.cpuAfter)}${spinning ? " (still busy)" : ""} | ${note} |`,
    );
  }
}

function rss(report: HarnessReport | undefined): string {
  if (report === undefined) return "–";
  const { rssBaselineBytes: base, rssPeakBytes: peak, rssAfterBytes: after, rssAfterCloseBytes: closed } =
    report;
  return `${mib(base)} / ${mib(peak)} / ${mib(after)} / ${mib(closed)} (heap ${
    mib(report.heapAfterCloseBytes)
  })`;
}

function printLoad(runs: readonly { executor: ExecutorName; run: ChildRun }[], attackers: number): void {
  console.log(
    `\n### Load: the corpus 50 at a time from ${attackers} hostile subject(s) next to a normal stream\n`,
  );
  console.log(
    "| executor | host survived | hostile done | classified as expected | worst overrun ms | over +100 ms | " +
      "normal ok/total | normal p50 / p99 / max ms | CPU 1st s / 2nd s after | RSS base / peak / after / closed MiB | tree RSS base / closed MiB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const { executor, run } of runs) {
    const records = run.report?.hostile ?? run.records;
    const worst = records.length === 0 ? undefined : Math.max(...records.map((r) => r.overrunMs));
    const late = records.filter((r) => r.overrunMs > 100).length;
    const expected = records.filter((r) => r.asExpected).length;
    const n = run.report?.normal;
    const died = run.timedOut
      ? "HUNG"
      : `NO (exit ${run.exitCode}${run.exitSignal ? " " + run.exitSignal : ""})`;
    console.log(
      `| ${executor} | ${run.hostSurvived ? "yes" : died} | ${records.length} | ${expected} | ${
        ms(worst)
      } | ${late} | ` +
        `${n ? `${n.count - n.failures}/${n.count}` : "–"} | ` +
        `${n ? `${ms(n.p50Ms)} / ${ms(n.p99Ms)} / ${ms(n.maxMs)}` : "–"} | ` +
        `${pct(run.cpuFirstSecond)} / ${pct(run.cpuSecondSecond)} | ` +
        `${rss(run.report)} | ` +
        `${mib(run.treeRssBaselineBytes)} / ${mib(run.treeRssAfterBytes)} |`,
    );
  }
  for (const { executor, run } of runs) {
    const records = run.report?.hostile ?? run.records;
    const wrong = records.filter((r) => !r.asExpected || r.overrunMs > 100);
    if (wrong.length > 0) {
      console.log(`\n${executor}: ${wrong.length} execution(s) misclassified or late:`);
      for (const r of wrong) {
        console.log(
          `- ${r.name}: ${r.outcome} after ${ms(r.elapsedMs)} ms (overrun ${ms(r.overrunMs)}) ${r.message}`,
        );
      }
    }
    const n = run.report?.normal;
    if (n !== undefined && n.failures > 0) {
      console.log(`\n${executor}: ${n.failures} normal execution(s) failed, e.g.:`);
      for (const f of n.failureSamples) console.log(`- ${f}`);
    }
    if (!run.hostSurvived) {
      console.log(`\n${executor}: host ended with programs in flight: ${run.inFlight.join(", ") || "none"}`);
      console.log(run.stderrTail.split("\n").slice(-6).join("\n"));
    }
  }
}

if (import.meta.main) {
  const args = parseArgs(Deno.args);
  console.log(
    `containment: ${HOSTILE_CORPUS.length} hostile programs; limits ${JSON.stringify(args.limits)} ` +
      `(others default); ${navigator.hardwareConcurrency} cores`,
  );
  if (args.each) {
    for (const executor of args.executors) {
      const rows = await diagnoseInChild(
        { executor, limits: args.limits, programs: args.programs },
        { timeoutMs: 120_000 },
      ).catch((err) => {
        console.log(
          `\n### ${executor}: could not run (${err instanceof Error ? err.message.slice(0, 300) : err})`,
        );
        return undefined;
      });
      if (rows !== undefined) printDiagnosis(executor, rows);
    }
  } else {
    for (const attackers of args.attackers) {
      const runs: { executor: ExecutorName; run: ChildRun }[] = [];
      for (const executor of args.executors) {
        const run = await runInChild({
          executor,
          limits: args.limits,
          programs: args.programs,
          concurrency: args.concurrency,
          rounds: args.rounds,
          attackers,
        }, { timeoutMs: 300_000 });
        runs.push({ executor, run });
      }
      printLoad(runs, attackers);
      const all = runs.flatMap(({ run }) => (run.report?.hostile ?? []).map((r) => r.elapsedMs));
      if (all.length > 0) {
        console.log(`\nhostile elapsed p50 ${ms(quantile(all, 0.5))} ms, p99 ${ms(quantile(all, 0.99))} ms`);
      }
    }
  }
}
