import assert from "node:assert/strict";
import {
  type Call,
  type CallContext,
  GatewayError,
  isGatewayError,
  makeResult,
  newTrace,
  toolRef,
} from "../domain/mod.ts";
import { CircuitBreaker, type CircuitState, Resilience } from "./mod.ts";

function fakeClock() {
  let now = 1000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const rejectsOpen = (p: Promise<unknown>) => assert.rejects(p, (e) => isGatewayError(e, "breaker_open"));

Deno.test("breaker: closed -> open after the threshold, half-open after open_ms, closed after a good trial", async () => {
  const clock = fakeClock();
  const changes: CircuitState[] = [];
  const b = new CircuitBreaker({
    failureThreshold: 3,
    openMs: 500,
    clock: clock.now,
    onChange: (s) => changes.push(s),
  });
  for (let i = 0; i < 2; i++) b.release(await b.acquire(), "failure");
  assert.equal(b.state, "closed");
  b.release(await b.acquire(), "success"); // a success resets the count
  for (let i = 0; i < 3; i++) b.release(await b.acquire(), "failure");
  assert.equal(b.state, "open");
  await rejectsOpen(b.acquire());
  clock.advance(499);
  await rejectsOpen(b.acquire());
  clock.advance(1);
  assert.equal(b.state, "half_open");
  const trial = await b.acquire();
  assert.equal(trial.trial, true);
  await rejectsOpen(b.acquire()); // one trial at a time
  b.release(trial, "success");
  assert.equal(b.state, "closed");
  assert.deepEqual(changes, ["open", "half_open", "closed"]);
});

Deno.test("breaker: a failed trial reopens for another open_ms; neutral outcomes change nothing", async () => {
  const clock = fakeClock();
  const b = new CircuitBreaker({ failureThreshold: 1, openMs: 100, clock: clock.now });
  b.release(await b.acquire(), "neutral");
  assert.equal(b.state, "closed");
  b.release(await b.acquire(), "failure");
  assert.equal(b.state, "open");
  clock.advance(100);
  b.release(await b.acquire(), "failure");
  assert.equal(b.state, "open");
  clock.advance(99);
  await rejectsOpen(b.acquire());
  clock.advance(1);
  const trial = await b.acquire();
  b.release(trial, "neutral"); // a cancelled trial frees the slot without deciding
  assert.equal(b.state, "half_open");
  b.release(await b.acquire(), "success");
  assert.equal(b.state, "closed");
});

Deno.test("breaker: half-open runs the real probe once for concurrent callers", async () => {
  const clock = fakeClock();
  let probes = 0;
  let healthy = false;
  const b = new CircuitBreaker({
    failureThreshold: 1,
    openMs: 50,
    clock: clock.now,
    probe: async () => {
      probes++;
      await new Promise((r) => setTimeout(r, 5));
      if (!healthy) throw new Error("ping failed");
    },
  });
  b.release(await b.acquire(), "failure");
  clock.advance(50);
  const failed = await Promise.allSettled([b.acquire(), b.acquire(), b.acquire()]);
  assert.equal(probes, 1);
  assert.ok(failed.every((r) => r.status === "rejected" && isGatewayError(r.reason, "breaker_open")));
  assert.equal(b.state, "open");
  healthy = true;
  clock.advance(50);
  const ok = await Promise.all([b.acquire(), b.acquire()]);
  assert.equal(probes, 2);
  assert.ok(ok.every((p) => !p.trial && p.observed === "half_open"));
  assert.equal(b.state, "closed");
});

Deno.test("breaker: a probe that never answers times out and keeps the breaker open", async () => {
  const clock = fakeClock();
  const b = new CircuitBreaker({
    failureThreshold: 1,
    openMs: 10,
    clock: clock.now,
    probeTimeoutMs: 30,
    probe: (signal) =>
      new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
  });
  b.release(await b.acquire(), "failure");
  clock.advance(10);
  await rejectsOpen(b.acquire());
  assert.equal(b.state, "open");
});

function call(name = "memory__read"): Call {
  const [ds, tool] = name.split("__");
  return { client: { id: "alice" }, tool: toolRef(ds, tool), name, args: {} };
}

function context(signal = new AbortController().signal): CallContext {
  return { signal, notify: () => {}, trace: newTrace() };
}

const OK = makeResult({ content: [] });

Deno.test("resilience: transport failures open the downstream breaker; open answers at once", async () => {
  const clock = fakeClock();
  let pings = 0;
  const stage = new Resilience({
    failureThreshold: 2,
    openMs: 1000,
    callTimeoutMs: 5000,
    clock: clock.now,
    probe: () => {
      pings++;
      return Promise.resolve();
    },
  });
  let dispatched = 0;
  const crash = () => {
    dispatched++;
    return Promise.reject(new GatewayError("downstream_unavailable", "EPIPE"));
  };
  for (let i = 0; i < 2; i++) {
    await assert.rejects(
      stage.handle(call(), context(), crash),
      (e) => isGatewayError(e, "downstream_unavailable"),
    );
  }
  const ctx = context();
  await rejectsOpen(stage.handle(call("memory__other"), ctx, crash));
  assert.equal(dispatched, 2, "an open breaker never reaches the downstream");
  assert.equal(ctx.trace.breakerState, "open");
  clock.advance(1000);
  const after = context();
  assert.equal(await stage.handle(call(), after, () => Promise.resolve(OK)), OK);
  assert.equal(pings, 1);
  assert.equal(after.trace.breakerState, "half_open");
  assert.equal(stage.downstreamBreaker("memory").state, "closed");
});

Deno.test("resilience: timeouts open the tool breaker only; a stuck downstream is answered at the deadline", async () => {
  const stage = new Resilience({ failureThreshold: 1, openMs: 60_000, callTimeoutMs: 20 });
  let sawAbort = false;
  const stuck = (_: Call, ctx: CallContext) =>
    new Promise<never>(() => ctx.signal.addEventListener("abort", () => (sawAbort = true)));
  await assert.rejects(
    stage.handle(call("memory__slow"), context(), stuck),
    (e) => isGatewayError(e, "timeout"),
  );
  assert.ok(sawAbort, "the downstream call's signal is aborted at the deadline");
  assert.equal(stage.toolBreaker("memory__slow").state, "open");
  assert.equal(stage.downstreamBreaker("memory").state, "closed");
  await rejectsOpen(stage.handle(call("memory__slow"), context(), stuck));
  assert.equal(await stage.handle(call("memory__fast"), context(), () => Promise.resolve(OK)), OK);
});

Deno.test("resilience: client cancellation never trips a breaker", async () => {
  const stage = new Resilience({ failureThreshold: 1, openMs: 60_000, callTimeoutMs: 5000 });
  for (let i = 0; i < 3; i++) {
    const controller = new AbortController();
    const p = stage.handle(
      call(),
      context(controller.signal),
      (_, ctx) =>
        new Promise<never>((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new GatewayError("downstream_unavailable")))
        ),
    );
    controller.abort();
    await assert.rejects(p, (e) => isGatewayError(e, "cancelled"));
  }
  assert.equal(stage.downstreamBreaker("memory").state, "closed");
  assert.equal(stage.toolBreaker("memory__read").state, "closed");
  const done = new AbortController();
  done.abort();
  await assert.rejects(
    stage.handle(call(), context(done.signal), () => Promise.resolve(OK)),
    (e) => isGatewayError(e, "cancelled"),
  );
});

Deno.test("resilience: protocol errors count as answers, other errors as neutral", async () => {
  const stage = new Resilience({ failureThreshold: 1, openMs: 60_000, callTimeoutMs: 5000 });
  await assert.rejects(
    stage.handle(
      call(),
      context(),
      () => Promise.reject(new GatewayError("downstream_error", "x", { detail: "bad" })),
    ),
  );
  await assert.rejects(
    stage.handle(call(), context(), () => Promise.reject(new Error("bug"))),
    (e) => isGatewayError(e, "internal"),
  );
  assert.equal(stage.downstreamBreaker("memory").state, "closed");
  assert.equal(stage.toolBreaker("memory__read").state, "closed");
});
