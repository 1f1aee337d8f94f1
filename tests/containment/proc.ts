/**
 * Process-tree metrics from Linux `/proc`, for the containment harness: CPU time (utime + stime) and
 * resident memory of a process and all of its descendants. Descendants matter because the `process`
 * executor runs programs in child processes of the host, whose CPU and memory are the host's problem too.
 *
 * @module
 */

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ). Linux fixes it at 100 on every arch. */
const CLOCK_TICKS = 100;

/** One process's entry of `/proc/<pid>/stat` that we use. */
interface StatEntry {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime in seconds. */
  readonly cpuSeconds: number;
}

function readStat(pid: number): StatEntry | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined; // Exited between the listing and the read.
  }
  // The command name is in parentheses and may itself contain spaces or parentheses: split after the last ")".
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 2).split(" ");
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { pid, ppid, cpuSeconds: ticks / CLOCK_TICKS };
}

function allStats(): StatEntry[] {
  const out: StatEntry[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const s = readStat(Number(entry.name));
    if (s !== undefined) out.push(s);
  }
  return out;
}

/** The pids of `root` and every live descendant. */
export function processTree(root: number): number[] {
  const stats = allStats();
  const children = new Map<number, number[]>();
  for (const s of stats) {
    const list = children.get(s.ppid) ?? [];
    list.push(s.pid);
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (out.includes(pid)) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds (user + system, all threads) used so far by `root` and its live descendants. */
export function treeCpuSeconds(root: number): number {
  let sum = 0;
  for (const pid of processTree(root)) sum += readStat(pid)?.cpuSeconds ?? 0;
  return sum;
}

/** Resident set size in bytes of one process (`VmRSS`), or 0 once it has exited. */
export function rssBytes(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return kb === null ? 0 : Number(kb[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Resident bytes of `root` and its live descendants. */
export function treeRssBytes(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + rssBytes(pid), 0);
}

/**
 * The CPU used by the tree of `root` over `ms` milliseconds, as a fraction of one core (1.0 = one core
 * busy the whole time). Children that exit during the window take their last seconds with them; the
 * window is meant for a tree that should already be idle.
 */
export async function cpuShareOver(root: number, ms: number): Promise<number> {
  const before = treeCpuSeconds(root);
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = treeCpuSeconds(root);
  const wall = (performance.now() - t0) / 1000;
  return Math.max(0, after - before) / wall;
}

/** Whether `/proc` metrics are available (Linux). */
export function procAvailable(): boolean {
  try {
    Deno.statSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}
