/**
 * The containment harness of issue 9. It runs the hostile corpus through a real `Builder`/`Server` on one
 * executor, many executions at a time, next to a stream of normal executions from another subject, and
 * measures what the issue asks: every hostile execution ends classified before its deadline + slack, the
 * normal stream keeps succeeding (latency percentiles), CPU returns to idle and RSS returns near its
 * baseline once the answers are in.
 *
 * The run itself happens in a CHILD Deno process ({@link runInChild}): a program that exhausts V8's heap
 * aborts the whole process it runs in, and that must show up as "the host died", not as a dead test
 * runner. The parent reads the child's CPU and RSS (and its descendants', for the process executor) from
 * `/proc`. {@link diagnoseInChild} runs programs one at a time instead and restarts the child after a
 * death, so a report can name exactly which program killed the host.
 *
 * Child protocol: `deno run harness.ts '<config json>'` prints one JSON event per line on stdout.
 *
 * @module
 */
import {
  allowAll,
  Builder,
  CapabilityError,
  type ExecutorChoice,
  isCodeModeError,
  type Limits,
  resolveLimits,
  type Server,
  t,
} from "../../mod.ts";
import { registerDemoCapabilities } from "../../src/demo/mod.ts";
import {
  HOSTILE_CORPUS,
  type HostileProgram,
  hostileProgram,
  NORMAL_PROGRAM,
  type Outcome,
} from "./corpus.ts";
import { cpuShareOver, treeRssBytes } from "./proc.ts";
import { registerHostileHandlers } from "./corpus_handlers.ts";
import { loadFactor } from "../timing.ts";

/** The executors the harness knows by name. */
export type ExecutorName = "inline" | "worker" | "process";

/** What one harness run does. Everything but `executor` has a default. */
export interface HarnessConfig {
  /** Executor to run on. */
  readonly executor: ExecutorName;
  /** Budget overrides (default: the library defaults). */
  readonly limits?: Partial<Limits>;
  /** Hostile executions in flight at once. Default 50. */
  readonly concurrency?: number;
  /** Passes over the corpus. Default 1. */
  readonly rounds?: number;
  /** Names of the programs to run (default: the whole corpus). */
  readonly programs?: readonly string[];
  /** Distinct hostile subjects the executions rotate through. Default 1. */
  readonly attackers?: number;
  /** Whether to run the normal stream next to the corpus. Default true. */
  readonly normalStream?: boolean;
  /** Pause between two normal executions, ms. Default 10. */
  readonly normalPauseMs?: number;
  /**
   * After each hostile execution, idle this long and record the CPU share of the host's process tree
   * meanwhile (a sandbox still spinning after its answer shows as ~100%). Only meaningful one at a time.
   * Default 0 (off).
   */
  readonly settleMs?: number;
  /** How long the host idles after the last answer before RSS is read (the parent reads CPU meanwhile). Default 2,200 ms. */
  readonly idleWindowMs?: number;
}

/** How one hostile execution ended. */
export interface HostileRecord {
  /** Program name. */
  readonly name: string;
  /** Outcome: the error code, `"ok"`, or `"unclassified"` for a rejection that is not a CodeModeError. */
  readonly outcome: Outcome | "unclassified";
  /**
   * Whether the outcome is one the corpus allows. A deadline (`resource_limit` for maxExecutionTime) is
   * allowed for every program: the time budget includes the wait for a slot, so under 50 concurrent
   * executions even a quick program may legitimately time out in the queue (`timedOut` tells them apart).
   */
  readonly asExpected: boolean;
  /** Whether it ended by the time budget. */
  readonly timedOut: boolean;
  /** Milliseconds from the call to `execute` to its settlement. */
  readonly elapsedMs: number;
  /** Settlement time minus the deadline (call time + maxExecutionTime); negative means before it. */
  readonly overrunMs: number;
  /** The host-side error message, cut short (for diagnosis only; never shown to a model). */
  readonly message: string;
  /** With `settleMs`: CPU share (1.0 = one core) of the host's process tree in the settle window. */
  readonly cpuAfter?: number;
}

/** Figures of the normal stream. */
export interface NormalStats {
  /** Executions completed. */
  readonly count: number;
  /** Executions that failed or returned a wrong value. */
  readonly failures: number;
  /** A few failure descriptions. */
  readonly failureSamples: readonly string[];
  /** Median latency, ms (0 when there were none). */
  readonly p50Ms: number;
  /** 99th-percentile latency (nearest rank), ms. */
  readonly p99Ms: number;
  /** Highest latency, ms. */
  readonly maxMs: number;
}

/** What the child reports once the run is over. */
export interface HarnessReport {
  /** Executor name. */
  readonly executor: ExecutorName;
  /** The time budget in force, ms. */
  readonly maxExecutionTime: number;
  /** The memory budget in force, bytes. */
  readonly maxMemoryBytes: number;
  /** Hostile executions in flight at once. */
  readonly concurrency: number;
  /** One record per hostile execution, in completion order. */
  readonly hostile: readonly HostileRecord[];
  /** The normal stream. */
  readonly normal: NormalStats;
  /** `Deno.memoryUsage().rss` after build and warm-up (after a GC), bytes. */
  readonly rssBaselineBytes: number;
  /** The highest RSS sampled during the run (every 50 ms), bytes. */
  readonly rssPeakBytes: number;
  /** RSS after the idle window and a GC, bytes (idle pooled sandboxes still count). */
  readonly rssAfterBytes: number;
  /** RSS after `server.close()` and a GC, bytes: what the executions left behind in the host itself. */
  readonly rssAfterCloseBytes: number;
  /** V8 heap in use after `server.close()` and a GC, bytes: live objects, unlike RSS. */
  readonly heapAfterCloseBytes: number;
  /** Wall time of the hostile phase, ms. */
  readonly hostileWallMs: number;
  /** Mean machine load factor (runnable tasks per core, see `tests/timing.ts`) during the hostile phase. */
  readonly loadFactorMean: number;
  /** Highest load factor sampled during the hostile phase. */
  readonly loadFactorMax: number;
  /**
   * The longest stall of the host's event loop during the hostile phase, ms: how much later than due a
   * 10 ms timer fired. Everything the host serves (normal executions, `/healthz`) waits at least this long.
   */
  readonly loopStallMaxMs: number;
}

/** One line of the child protocol. */
export type ChildEvent =
  | { readonly t: "ready"; readonly rss: number }
  | { readonly t: "start"; readonly name: string }
  | { readonly t: "end"; readonly record: HostileRecord }
  | { readonly t: "answered" }
  | { readonly t: "report"; readonly report: HarnessReport }
  | { readonly t: "fatal"; readonly message: string };

/** Extra capabilities next to the demo shop, so programs can send big strings, lists and JSON to the host. */
function registerHarnessCapabilities(builder: Builder): void {
  builder.register({
    id: "harness.text.echo",
    name: "text.echo",
    summary: "Echo a text back",
    searchTerms: ["repeat text"],
    input: t.struct({ text: t.str() }),
    output: t.struct({ text: t.str() }),
    handler: ({ text }) => ({ text }),
  });
  builder.register({
    id: "harness.data.size",
    name: "data.size",
    summary: "Measure any JSON value",
    searchTerms: ["json size"],
    input: t.struct({ value: t.json() }),
    output: t.struct({ bytes: t.int() }),
    handler: ({ value }) => ({ bytes: JSON.stringify(value).length }),
  });
  builder.register({
    id: "harness.data.total",
    name: "data.total",
    summary: "Add up a list of integers",
    searchTerms: ["sum numbers"],
    input: t.struct({ values: t.list(t.int()) }),
    output: t.struct({ total: t.int() }),
    handler: ({ values }) => {
      const total = values.reduce((a, b) => a + b, 0);
      if (!Number.isSafeInteger(total)) {
        throw new CapabilityError("total out of range", { safeForModel: true });
      }
      return { total };
    },
  });
}

/** Builds the harness server (demo catalog + harness capabilities) on the named executor. */
export async function buildHarnessServer(executor: ExecutorName, limits?: Partial<Limits>): Promise<Server> {
  const builder = new Builder({
    authorizer: allowAll(),
    // "process" is passed by name; a tree without that executor rejects it at build time.
    executor: executor as ExecutorChoice,
    limits,
  });
  registerDemoCapabilities(builder);
  registerHarnessCapabilities(builder);
  registerHostileHandlers(builder);
  return await builder.build();
}

function outcomeOf(err: unknown): Outcome | "unclassified" {
  return isCodeModeError(err) ? err.code : "unclassified";
}

function shortMessage(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 200 ? text.slice(0, 199) + "…" : text;
}

/** The q-quantile (0..1) of `values` by nearest rank; 0 for an empty list. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function gc(): void {
  // The child runs with serve's --expose-gc so RSS is read after a collection; elsewhere a no-op.
  (globalThis as { gc?: () => void }).gc?.();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The host-side message of a time-budget `resource_limit` (see `src/executor/host_call.ts`). */
const DEADLINE_MESSAGE = /maxExecutionTime|deadline/;

/** Runs one hostile program and classifies how it ended. */
async function runHostile(
  server: Server,
  program: HostileProgram,
  subject: string,
  maxExecutionTime: number,
  source: string = program.source,
): Promise<HostileRecord> {
  const started = performance.now();
  let outcome: Outcome | "unclassified" = "ok";
  let message = "";
  try {
    await server.execute({ id: subject }, source);
  } catch (err) {
    outcome = outcomeOf(err);
    message = shortMessage(err);
  }
  const ended = performance.now();
  const timedOut = outcome === "resource_limit" && DEADLINE_MESSAGE.test(message);
  return {
    name: program.name,
    outcome,
    asExpected: (program.expect as readonly string[]).includes(outcome) || timedOut,
    timedOut,
    elapsedMs: ended - started,
    overrunMs: ended - (started + maxExecutionTime),
    message,
  };
}

/** Runs the normal program in a loop until `stop` resolves; returns the latencies and failures. */
async function normalStream(
  server: Server,
  stop: Promise<void>,
  pauseMs: number,
): Promise<{ latencies: number[]; failures: string[] }> {
  let stopped = false;
  void stop.then(() => stopped = true);
  const latencies: number[] = [];
  const failures: string[] = [];
  while (!stopped) {
    const t0 = performance.now();
    try {
      const value = await server.execute({ id: "normal-user" }, NORMAL_PROGRAM.source);
      if (!sameValue(value, NORMAL_PROGRAM.expected)) failures.push(`wrong value ${JSON.stringify(value)}`);
    } catch (err) {
      failures.push(shortMessage(err));
    }
    latencies.push(performance.now() - t0);
    await sleep(pauseMs);
  }
  return { latencies, failures };
}

/** The programs a config selects, repeated for each round. */
export function selectPrograms(config: HarnessConfig): HostileProgram[] {
  const chosen = config.programs === undefined ? [...HOSTILE_CORPUS] : config.programs.map(hostileProgram);
  const out: HostileProgram[] = [];
  for (let r = 0; r < (config.rounds ?? 1); r++) out.push(...chosen);
  return out;
}

/**
 * Runs the harness in THIS process (the child's job) and reports through `emit`. Resolves with the
 * report; the server is closed before it resolves.
 */
export async function runHarness(
  config: HarnessConfig,
  emit: (e: ChildEvent) => void,
): Promise<HarnessReport> {
  const server = await buildHarnessServer(config.executor, config.limits);
  try {
    const { maxExecutionTime, maxMemoryBytes } = resolveLimits(config.limits);
    const concurrency = config.concurrency ?? 50;
    const attackers = config.attackers ?? 1;
    // Warm-up: the first executions pay for worker spawns and JIT; the baseline is taken after them.
    for (let i = 0; i < 3; i++) await server.execute({ id: "normal-user" }, NORMAL_PROGRAM.source);
    // Some families make their multi-megabyte sources when read (corpus_compile.ts): made here, before
    // the baseline and the clocks, and dropped once the hostile phase is over.
    const sources = new Map(selectPrograms(config).map((p) => [p.name, p.source]));
    gc();
    const rssBaselineBytes = Deno.memoryUsage().rss;
    emit({ t: "ready", rss: rssBaselineBytes });

    let rssPeakBytes = rssBaselineBytes;
    const loads: number[] = [];
    let hostileOver = false;
    let loopStallMaxMs = 0;
    let lastTick = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      if (!hostileOver) loopStallMaxMs = Math.max(loopStallMaxMs, now - lastTick - 10);
      lastTick = now;
    }, 10);
    const sampler = setInterval(() => {
      rssPeakBytes = Math.max(rssPeakBytes, Deno.memoryUsage().rss);
      if (!hostileOver) loads.push(loadFactor());
    }, 50);
    const { promise: hostileDone, resolve: finishHostile } = Promise.withResolvers<void>();
    const normal = config.normalStream === false
      ? Promise.resolve({ latencies: [], failures: [] })
      : normalStream(server, hostileDone, config.normalPauseMs ?? 10);

    const queue = selectPrograms(config);
    const records: HostileRecord[] = [];
    let next = 0;
    const t0 = performance.now();
    const lane = async (laneIndex: number) => {
      while (next < queue.length) {
        const index = next++;
        const program = queue[index];
        emit({ t: "start", name: program.name });
        const subject = `attacker-${laneIndex % attackers}`;
        let record = await runHostile(server, program, subject, maxExecutionTime, sources.get(program.name));
        if (config.settleMs) record = { ...record, cpuAfter: await cpuShareOver(Deno.pid, config.settleMs) };
        records.push(record);
        emit({ t: "end", record });
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, (_, i) => lane(i)));
    const hostileWallMs = performance.now() - t0;
    hostileOver = true;
    sources.clear();
    clearInterval(ticker);
    finishHostile();
    const { latencies, failures } = await normal;
    emit({ t: "answered" });

    await sleep(config.idleWindowMs ?? 2_200);
    clearInterval(sampler);
    gc();
    const report: HarnessReport = {
      executor: config.executor,
      maxExecutionTime,
      maxMemoryBytes,
      concurrency,
      hostile: records,
      normal: {
        count: latencies.length,
        failures: failures.length,
        failureSamples: failures.slice(0, 5),
        p50Ms: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
        maxMs: latencies.length === 0 ? 0 : Math.max(...latencies),
      },
      rssBaselineBytes,
      rssPeakBytes,
      rssAfterBytes: Deno.memoryUsage().rss,
      rssAfterCloseBytes: 0,
      heapAfterCloseBytes: 0,
      hostileWallMs,
      loadFactorMean: loads.length === 0 ? 1 : loads.reduce((a, b) => a + b, 0) / loads.length,
      loadFactorMax: loads.length === 0 ? 1 : Math.max(...loads),
      loopStallMaxMs,
    };
    await server.close();
    gc();
    await sleep(200);
    gc();
    const memory = Deno.memoryUsage();
    const closed = { ...report, rssAfterCloseBytes: memory.rss, heapAfterCloseBytes: memory.heapUsed };
    emit({ t: "report", report: closed });
    return closed;
  } finally {
    await server.close();
  }
}

/** What the parent observed of one child run. */
export interface ChildRun {
  /** Whether the child exited normally (status 0) after reporting. */
  readonly hostSurvived: boolean;
  /** The child's exit status. */
  readonly exitCode: number;
  /** The signal that ended the child, if any (SIGTRAP for a V8 out-of-memory abort). */
  readonly exitSignal: string | null;
  /** Whether the parent had to kill the child for exceeding `timeoutMs`. */
  readonly timedOut: boolean;
  /** The last part of the child's stderr (V8's fatal error text on an OOM). */
  readonly stderrTail: string;
  /** The report, when the child got that far. */
  readonly report?: HarnessReport;
  /** Records received, even when the child died before reporting. */
  readonly records: readonly HostileRecord[];
  /** Programs started but not answered when the child ended (the suspects of a death). */
  readonly inFlight: readonly string[];
  /** CPU of the child's process tree (fraction of one core) in the first second after the answers. */
  readonly cpuFirstSecond?: number;
  /** The same in the second second: an idle host is near 0. */
  readonly cpuSecondSecond?: number;
  /** RSS of the child's process tree at the ready event, bytes. */
  readonly treeRssBaselineBytes?: number;
  /** RSS of the child's process tree when it reported (after closing its server), bytes. */
  readonly treeRssAfterBytes?: number;
}

/** Options of {@link runInChild}. */
export interface ChildOptions {
  /** Kill the child after this long (default 180 s). */
  readonly timeoutMs?: number;
  /** Extra V8 flags for the child (e.g. a heap cap). */
  readonly v8Flags?: readonly string[];
}

const HERE = new URL("./harness.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** The V8 flags `deno task serve` gives the product (the child hosts the corpus the way it is served). */
function serveV8Flags(): string[] {
  const tasks = (JSON.parse(Deno.readTextFileSync(CONFIG)) as { tasks: Record<string, string> }).tasks;
  const flags = /--v8-flags=(\S+)/.exec(tasks.serve)?.[1];
  if (flags === undefined) throw new Error("deno task serve passes no --v8-flags");
  return flags.split(",");
}

/** Runs {@link runHarness} in a child Deno process and watches it from outside. */
export async function runInChild(config: HarnessConfig, options: ChildOptions = {}): Promise<ChildRun> {
  const v8 = [...serveV8Flags(), ...(options.v8Flags ?? [])].join(",");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", CONFIG, `--v8-flags=${v8}`, HERE, JSON.stringify(config)],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const guard = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 180_000);
  let stderr = "";
  const stderrDone = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr = (stderr + chunk).slice(-4_000);
    }
  })();

  const records: HostileRecord[] = [];
  const inFlight: string[] = [];
  let report: HarnessReport | undefined;
  let treeRssBaselineBytes: number | undefined;
  let treeRssAfterBytes: number | undefined;
  let cpu: Promise<[number, number]> | undefined;
  let buffer = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let event: ChildEvent;
      try {
        event = JSON.parse(line) as ChildEvent;
      } catch {
        continue; // Not a protocol line (something else wrote to stdout).
      }
      if (event.t === "ready") treeRssBaselineBytes = treeRssBytes(child.pid);
      else if (event.t === "start") inFlight.push(event.name);
      else if (event.t === "end") {
        records.push(event.record);
        const i = inFlight.indexOf(event.record.name);
        if (i >= 0) inFlight.splice(i, 1);
      } else if (event.t === "answered") {
        // Two consecutive one-second windows: the first shows how fast CPU falls, the second that it is idle.
        cpu = (async () => [await cpuShareOver(child.pid, 1_000), await cpuShareOver(child.pid, 1_000)])();
      } else if (event.t === "report") {
        report = event.report;
        treeRssAfterBytes = treeRssBytes(child.pid);
      } else if (event.t === "fatal") stderr += `\n[fatal] ${event.message}`;
    }
  }
  const status = await child.status;
  clearTimeout(guard);
  await stderrDone.catch(() => {});
  const [cpuFirstSecond, cpuSecondSecond] = cpu === undefined ? [undefined, undefined] : await cpu;
  return {
    hostSurvived: status.success && report !== undefined,
    exitCode: status.code,
    exitSignal: status.signal,
    timedOut,
    stderrTail: stderr.slice(-1_500),
    report,
    records,
    inFlight,
    cpuFirstSecond,
    cpuSecondSecond,
    treeRssBaselineBytes,
    treeRssAfterBytes,
  };
}

/** One program's fate in a one-at-a-time diagnosis. */
export interface Diagnosis {
  /** Program name. */
  readonly name: string;
  /** The record, when the program ended inside a living host. */
  readonly record?: HostileRecord;
  /** Set when the host died (or hung) while this program was the only one running. */
  readonly killedHost?: {
    readonly exitCode: number;
    readonly signal: string | null;
    readonly timedOut: boolean;
    readonly stderr: string;
  };
}

/**
 * Runs the selected programs ONE AT A TIME (no normal stream) in a child, restarting the child after a
 * death, so that every death is attributed to exactly one program.
 */
export async function diagnoseInChild(
  config: Omit<HarnessConfig, "concurrency" | "normalStream">,
  options: ChildOptions = {},
): Promise<Diagnosis[]> {
  let remaining = selectPrograms(config).map((p) => p.name);
  const out: Diagnosis[] = [];
  while (remaining.length > 0) {
    const run = await runInChild(
      {
        settleMs: 400,
        ...config,
        rounds: 1,
        programs: remaining,
        concurrency: 1,
        normalStream: false,
        idleWindowMs: 0,
      },
      options,
    );
    for (const record of run.records) out.push({ name: record.name, record });
    const done = new Set(run.records.map((r) => r.name));
    const culprit = run.inFlight[0];
    if (culprit !== undefined && !run.hostSurvived) {
      out.push({
        name: culprit,
        killedHost: {
          exitCode: run.exitCode,
          signal: run.exitSignal,
          timedOut: run.timedOut,
          stderr: run.stderrTail.split("\n").filter((l) => /fatal|error|memory/i.test(l)).slice(0, 3).join(
            " | ",
          ),
        },
      });
      done.add(culprit);
    } else if (!run.hostSurvived) {
      throw new Error(`harness child failed outside any program (exit ${run.exitCode}): ${run.stderrTail}`);
    }
    remaining = remaining.filter((name) => !done.has(name));
  }
  return out;
}

if (import.meta.main) {
  const emit = (e: ChildEvent) => console.log(JSON.stringify(e));
  try {
    await runHarness(JSON.parse(Deno.args[0]) as HarnessConfig, emit);
  } catch (err) {
    emit({ t: "fatal", message: shortMessage(err) });
    Deno.exit(1);
  }
}
