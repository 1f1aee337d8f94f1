/**
 * The evaluator over the memory store, on an injected clock: token buckets, concurrency slots, UTC
 * windows, all-or-nothing checks across rules, the most restrictive refusal, reload semantics, and the
 * store-error policy with its health and recovery.
 */
import assert from "node:assert/strict";
import {
  type Admission,
  compileRule,
  type LimitRule,
  Limits,
  type LimitsSettings,
  type LimitStore,
  MemoryStore,
  parsePer,
  parseResetTime,
  QUOTA_UNITS,
  RATE_UNITS,
  refusalText,
  ruleProblems,
  type Subject,
  toolPatternProblem,
} from "./mod.ts";

const MIN = 60_000;
const DAY = 86_400_000;

function rule(partial: Partial<LimitRule> & { name?: string }): LimitRule {
  return { name: "r", clients: ["*"], tools: ["*"], downstreams: ["*"], ...partial };
}

function subject(client: string, tool: string): Subject {
  return { client, tool, downstream: tool.slice(0, tool.indexOf("__")) };
}

async function clocked(rules: LimitRule[], start = Date.UTC(2026, 0, 1, 12)) {
  const clock = { now: start };
  const settings: LimitsSettings = { store: "memory", onStoreError: "deny", rules };
  const store = new MemoryStore({ now: () => clock.now });
  const limits = await Limits.open(settings, { openStore: () => Promise.resolve(store) });
  return { clock, limits, store, settings };
}

async function admitted(limits: Limits, s: Subject, n: number): Promise<Admission[]> {
  const out: Admission[] = [];
  for (let i = 0; i < n; i++) out.push(await limits.check(s));
  return out;
}

const okCount = (as: Admission[]) => as.filter((a) => a.ok).length;

Deno.test("limits: parsePer reads every unit, long names, and refuses malformed or out-of-range text", () => {
  const periods: Record<string, number> = { s: 1000, min: MIN, h: 3_600_000, day: DAY };
  for (const unit of RATE_UNITS) {
    for (const n of [1, 7, 600, 1_000_000]) {
      assert.deepEqual(parsePer(`${n}/${unit}`, RATE_UNITS), { count: n, periodMs: periods[unit] });
    }
  }
  assert.deepEqual(parsePer(" 5 / second ", RATE_UNITS), { count: 5, periodMs: 1000 });
  assert.deepEqual(parsePer("5000/day", QUOTA_UNITS), { count: 5000, periodMs: DAY });
  assert.deepEqual(parsePer("3/hour", QUOTA_UNITS), { count: 3, periodMs: 3_600_000 });
  for (const bad of ["", "60", "/min", "0/min", "-1/min", "1.5/min", "60/fortnight", "60/min/s", "x/min"]) {
    assert.equal(typeof parsePer(bad, RATE_UNITS), "string", bad);
  }
  assert.match(parsePer("5/day", RATE_UNITS) as string, /not one of s, min, h/);
  assert.match(parsePer("5/s", QUOTA_UNITS) as string, /not one of min, h, day/);
  assert.equal(parseResetTime("06:30"), (6 * 60 + 30) * MIN);
  for (const bad of ["6:30", "24:00", "12:60", "noon"]) assert.equal(typeof parseResetTime(bad), "string");
});

Deno.test("limits: tool patterns match like a reference over generated names; bad patterns are refused", () => {
  const downstreams = ["memory", "github", "fs"];
  const tools = ["search", "search_nodes", "read", "searchx", "s"];
  const names = downstreams.flatMap((d) => tools.map((t) => `${d}__${t}`));
  const patterns = [
    "*",
    ...downstreams.map((d) => `${d}__*`),
    ...names,
    "memory__search*",
    "memory__search_*",
    "*__search*",
    "*__s",
    "mem*__*_nodes",
    "memory__*r*",
  ];
  // The policy's semantics: `*` alone is every tool, otherwise `*` is any run over the whole name.
  const reference = (p: string, name: string) =>
    p === "*" || new RegExp(`^${p.split("*").join(".*")}$`).test(name);
  for (const p of patterns) {
    assert.equal(toolPatternProblem(p), undefined, p);
    const c = compileRule(rule({ tools: [p], rate: { count: 1, periodMs: 1000 } }));
    for (const n of names) assert.equal(c.matches(subject("a", n)), reference(p, n), `${p} vs ${n}`);
  }
  for (const bad of ["memory", "memory__", "__x", "mem*", "memory____x", "me.mory__x", "me.*__x"]) {
    assert.notEqual(toolPatternProblem(bad), undefined, bad);
  }
  assert.deepEqual(ruleProblems(rule({})), ["states no limit (rate, concurrency or quota)"]);
  assert.deepEqual(ruleProblems(rule({ burst: 3, concurrency: 1 })), ["burst needs a rate"]);
  assert.throws(() => compileRule(rule({ tools: ["bad"], concurrency: 1 })), TypeError);
});

Deno.test("limits: clients, tools and downstreams select the rule; other calls are not counted", async () => {
  const { limits } = await clocked([
    rule({ clients: ["bob"], tools: ["memory__search_*"], rate: { count: 2, periodMs: MIN } }),
    rule({ name: "gh", downstreams: ["github"], concurrency: 1 }),
  ]);
  assert.equal(okCount(await admitted(limits, subject("bob", "memory__search_nodes"), 5)), 2);
  // Another client, another tool of the downstream: untouched by bob's rule.
  assert.equal(okCount(await admitted(limits, subject("alice", "memory__search_nodes"), 5)), 5);
  assert.equal(okCount(await admitted(limits, subject("bob", "memory__read_graph"), 5)), 5);
  const held = await limits.check(subject("alice", "github__x"));
  assert.ok(held.ok);
  const refused = await limits.check(subject("alice", "github__y"));
  assert.ok(!refused.ok && "refusal" in refused);
  assert.equal(refused.refusal.kind, "concurrency");
  assert.equal(refused.refusal.rule, "gh");
  assert.ok((await limits.check(subject("bob", "github__x"))).ok, "per client");
  held.release();
  held.release(); // twice is once
  const again = await limits.check(subject("alice", "github__y"));
  assert.ok(again.ok);
  assert.ok(!(await limits.check(subject("alice", "github__y"))).ok, "a double release frees one slot only");
  await limits.close();
});

Deno.test("limits: a token bucket admits its burst, then refills at its rate", async () => {
  for (const [count, periodMs, burst] of [[60, MIN, 10], [5, 1000, 5], [120, MIN, 120], [3, 3_600_000, 1]]) {
    const { clock, limits } = await clocked([rule({ rate: { count, periodMs }, burst })]);
    const s = subject("c", "ds__t");
    assert.equal(okCount(await admitted(limits, s, burst + 5)), burst);
    const refused = await limits.check(s);
    assert.ok(!refused.ok && "refusal" in refused);
    const interval = periodMs / count;
    assert.equal(refused.refusal.retryAfterMs, Math.ceil(interval));
    assert.equal(refused.refusal.kind, "rate");
    clock.now += interval / 2;
    assert.equal((await limits.check(s)).ok, false, "half a token is not a token");
    clock.now += interval / 2;
    assert.equal(okCount(await admitted(limits, s, 3)), 1, "one interval, one token");
    clock.now += periodMs * 10;
    assert.equal(okCount(await admitted(limits, s, burst + 5)), burst, "refill stops at the burst");
    await limits.close();
  }
});

Deno.test("limits: two rules that say the same thing under two names spend one counter once", async () => {
  const same = { rate: { count: 4, periodMs: DAY }, concurrency: 2 };
  const { limits } = await clocked([rule({ name: "a", ...same }), rule({ name: "b", ...same })]);
  const s = subject("c", "d__t");
  const held = await admitted(limits, s, 2);
  assert.equal(okCount(held), 2, "two slots, not one");
  for (const a of held) if (a.ok) a.release();
  assert.equal(okCount(await admitted(limits, s, 3)), 2, "four tokens, spent one by one");
  await limits.close();
});

Deno.test("limits: a burst defaults to the rate's count", async () => {
  const { limits } = await clocked([rule({ rate: { count: 7, periodMs: MIN } })]);
  assert.equal(okCount(await admitted(limits, subject("c", "d__t"), 20)), 7);
  await limits.close();
});

Deno.test("limits: a quota resets at the UTC boundary it states", async () => {
  const before = Date.UTC(2026, 2, 3, 23, 59, 59);
  const { clock, limits } = await clocked([rule({ quota: { count: 3, periodMs: DAY } })], before);
  const s = subject("alice", "d__t");
  assert.equal(okCount(await admitted(limits, s, 5)), 3);
  const refused = await limits.check(s);
  assert.ok(!refused.ok && "refusal" in refused);
  assert.equal(refused.refusal.kind, "quota");
  assert.equal(refused.refusal.retryAfterMs, 1000);
  assert.equal(refusalText(refused.refusal), 'quota exceeded: retry after 1 s (rule "r")');
  clock.now = Date.UTC(2026, 2, 4, 0, 0, 0);
  assert.equal(okCount(await admitted(limits, s, 5)), 3, "a new day");
  await limits.close();

  // Reset at 06:00 UTC: 05:59 and 06:00 are different windows, 06:00 and 23:00 the same one.
  const shifted = await clocked(
    [rule({ quota: { count: 2, periodMs: DAY }, quotaResetMs: 6 * 3_600_000 })],
    Date.UTC(2026, 2, 4, 5, 59),
  );
  assert.equal(okCount(await admitted(shifted.limits, s, 3)), 2);
  const wait = await shifted.limits.check(s);
  assert.ok(!wait.ok && "refusal" in wait && wait.refusal.retryAfterMs === MIN);
  shifted.clock.now = Date.UTC(2026, 2, 4, 6, 0);
  assert.equal(okCount(await admitted(shifted.limits, s, 3)), 2);
  shifted.clock.now = Date.UTC(2026, 2, 4, 23, 0);
  assert.equal(okCount(await admitted(shifted.limits, s, 3)), 0);
  await shifted.limits.close();
});

Deno.test("limits: a call refused by one rule spends nothing of the others", async () => {
  const { limits } = await clocked([
    rule({ name: "all", rate: { count: 3, periodMs: DAY }, burst: 3 }),
    rule({ name: "x-quota", tools: ["ds__x"], quota: { count: 1, periodMs: DAY } }),
    rule({ name: "x-slots", tools: ["ds__x"], concurrency: 5 }),
  ]);
  const first = await limits.check(subject("c", "ds__x"));
  assert.ok(first.ok);
  for (let i = 0; i < 10; i++) {
    const a = await limits.check(subject("c", "ds__x"));
    assert.ok(!a.ok && "refusal" in a && a.refusal.rule === "x-quota");
  }
  // The bucket still holds its two tokens, and no slot leaked from the refused calls.
  assert.equal(okCount(await admitted(limits, subject("c", "ds__y"), 5)), 2);
  await limits.close();
});

Deno.test("limits: when several rules refuse, the one with the longest wait is reported", async () => {
  const { limits } = await clocked([
    rule({ name: "fast", rate: { count: 1, periodMs: 1000 }, burst: 1 }),
    rule({ name: "daily", quota: { count: 1, periodMs: DAY } }),
    rule({ name: "hourly", quota: { count: 1, periodMs: 3_600_000 } }),
  ], Date.UTC(2026, 0, 1, 12));
  assert.ok((await limits.check(subject("c", "d__t"))).ok);
  const a = await limits.check(subject("c", "d__t"));
  assert.ok(!a.ok && "refusal" in a);
  assert.equal(a.refusal.rule, "daily");
  assert.equal(a.refusal.retryAfterMs, 12 * 3_600_000);
  await limits.close();
});

Deno.test("limits: a reload keeps the counters of kept rules and starts changed rules fresh", async () => {
  const kept = rule({ name: "kept", tools: ["a__*"], rate: { count: 2, periodMs: DAY } });
  const changing = rule({ name: "changing", tools: ["b__*"], rate: { count: 2, periodMs: DAY } });
  const { limits, settings } = await clocked([kept, changing]);
  assert.equal(okCount(await admitted(limits, subject("c", "a__t"), 3)), 2);
  assert.equal(okCount(await admitted(limits, subject("c", "b__t"), 3)), 2);
  // Reordered and renamed: still the same rule. The other one now allows 3 a day: a new rule.
  await limits.reconfigure({
    ...settings,
    rules: [{ ...changing, rate: { count: 3, periodMs: DAY } }, { ...kept, name: "renamed" }],
  });
  const a = await limits.check(subject("c", "a__t"));
  assert.ok(!a.ok && "refusal" in a && a.refusal.rule === "renamed");
  assert.equal(okCount(await admitted(limits, subject("c", "b__t"), 5)), 3);
  await limits.close();
});

/** A store that fails, hangs or answers, as a test sets it. */
class FlakyStore implements LimitStore {
  readonly kind = "redis";
  mode: "fail" | "hang" | "ok" = "fail";
  readonly inner = new MemoryStore();
  check(requests: Parameters<LimitStore["check"]>[0]) {
    if (this.mode === "fail") return Promise.reject(new Error("connection refused"));
    if (this.mode === "hang") return new Promise<never>(() => {});
    return Promise.resolve(this.inner.check(requests));
  }
  release(leases: Parameters<LimitStore["release"]>[0]) {
    this.inner.release(leases);
  }
  ping() {
    return this.mode === "ok" ? Promise.resolve() : Promise.reject(new Error("down"));
  }
  close() {
    return Promise.resolve();
  }
}

Deno.test("limits: a failing or slow store is decided by on_store_error, degrades health, and recovers", async () => {
  for (const action of ["deny", "allow"] as const) {
    const store = new FlakyStore();
    const events: string[] = [];
    const limits = await Limits.open(
      { store: "redis://x", onStoreError: action, storeTimeoutMs: 30, rules: [rule({ concurrency: 1 })] },
      {
        openStore: () => Promise.resolve(store),
        probeEveryMs: 20,
        events: { storeError: (a) => events.push(`error:${a}`), health: (h) => events.push(h) },
      },
    );
    assert.equal(limits.health, "ok");
    const failed = await limits.check(subject("c", "d__t"));
    assert.equal(failed.ok, action === "allow");
    assert.ok("storeError" in failed && failed.storeError);
    assert.equal(limits.health, "degraded");
    store.mode = "hang";
    const started = performance.now();
    const slow = await limits.check(subject("c", "d__t"));
    assert.ok(performance.now() - started < 2_000, "a hung store does not hang the call");
    assert.ok("storeError" in slow && slow.storeError);
    // Recovery needs no call: the probe notices.
    store.mode = "ok";
    const deadline = Date.now() + 5_000;
    while (limits.health !== "ok" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(limits.health, "ok");
    assert.deepEqual(events, ["degraded", `error:${action}`, `error:${action}`, "ok"]);
    const fine = await limits.check(subject("c", "d__t"));
    assert.ok(fine.ok && !("storeError" in fine));
    await limits.close();
  }
});

Deno.test("limits: the memory store sweeps idle counters as time passes", () => {
  const clock = { now: 0 };
  const store = new MemoryStore({ now: () => clock.now });
  for (let i = 0; i < 100; i++) {
    store.check([
      { kind: "rate", key: `r${i}`, burst: 5, count: 5, periodMs: 1000 },
      { kind: "quota", key: `q${i}`, limit: 5, periodMs: 1000, offsetMs: 0 },
    ]);
  }
  assert.equal(store.size, 200);
  clock.now = 20_000;
  store.check([]);
  assert.equal(store.size, 0);
});
