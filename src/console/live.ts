/**
 * The console's live model and its event streams: the audit ring and the figures fed by the audit tap,
 * downstream restarts and breaker states fed by the gateway's events, and the server-sent events that
 * carry them to every open page in batches (at most four a second, shared by every stream), so the cost
 * of a page does not grow with the audit rate.
 *
 * @module
 */
import type {
  AuditEntry,
  BreakerView,
  ConsoleSources,
  DownstreamLifecycle,
  DownstreamView,
  ExplanationView,
  ReloadView,
} from "./domain.ts";
import { AuditRing } from "./ring.ts";
import { LiveStats, type LiveStatsOptions } from "./stats.ts";
import { encodeEvent, SseStream } from "./sse.ts";

/** Options of a {@link ConsoleLive}. */
export interface ConsoleLiveOptions {
  /** Audit records kept (default 2000). */
  readonly ringSize?: number;
  /** Most audit records sent in one batch (default 500; older ones in a burst are skipped). */
  readonly batchRecords?: number;
  /** Period of the batches in milliseconds (default 250). */
  readonly batchMs?: number;
  /** How often (in batches) the downstream, client and chart figures are sent (default 4). */
  readonly figuresEvery?: number;
  /** Unsent bytes a stream may hold before its reader is dropped (default 1 MiB). */
  readonly streamBufferBytes?: number;
  /** Most open streams (default 32; more are refused). */
  readonly maxStreams?: number;
  /** Options of the figures. */
  readonly stats?: LiveStatsOptions;
  /** Epoch milliseconds. */
  readonly now?: () => number;
}

interface Tracked {
  state: DownstreamLifecycle;
  restarts: number;
  wasDown: boolean;
  breaker: BreakerView;
  openedAt?: number;
}

/** The live model behind every console page. */
export class ConsoleLive {
  readonly #sources: ConsoleSources;
  readonly #ring: AuditRing;
  readonly #stats: LiveStats;
  readonly #streams = new Map<SseStream, { last: number }>();
  readonly #tracked = new Map<string, Tracked>();
  readonly #batchRecords: number;
  readonly #batchMs: number;
  readonly #figuresEvery: number;
  readonly #bufferBytes: number;
  readonly #maxStreams: number;
  readonly #now: () => number;
  #reload: ReloadView | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #ticks = 0;
  #configSent: string | undefined;

  /** Creates the model over the gateway's sources. */
  constructor(sources: ConsoleSources, options: ConsoleLiveOptions = {}) {
    this.#sources = sources;
    this.#ring = new AuditRing(options.ringSize ?? 2000);
    this.#now = options.now ?? Date.now;
    this.#stats = new LiveStats({ now: this.#now, ...options.stats });
    this.#batchRecords = options.batchRecords ?? 500;
    this.#batchMs = options.batchMs ?? 250;
    this.#figuresEvery = Math.max(1, options.figuresEvery ?? 4);
    this.#bufferBytes = options.streamBufferBytes ?? 1 << 20;
    this.#maxStreams = options.maxStreams ?? 32;
  }

  /** The audit tap: called with every (already redacted) record the gateway audits. Cheap and bounded. */
  readonly record = (record: AuditEntry): void => {
    this.#ring.push(record);
    this.#stats.add(record);
  };

  /** A downstream changed state (from the gateway's downstream events). */
  downstreamState(name: string, state: DownstreamLifecycle): void {
    const t = this.#track(name);
    if (state === "down") t.wasDown = true;
    if (state === "up" && t.wasDown) {
      t.restarts++;
      t.wasDown = false;
    }
    t.state = state;
  }

  /** A downstream's breaker changed state (from the gateway's resilience events). */
  breakerState(name: string, state: "closed" | "open" | "half_open"): void {
    const t = this.#track(name);
    t.breaker = state;
    t.openedAt = state === "open" ? this.#now() : undefined;
  }

  /** Records the outcome of a configuration reload. */
  reloaded(view: ReloadView): void {
    this.#reload = view;
  }

  /** The downstream rows as the page shows them. */
  downstreams(): DownstreamView[] {
    const openMs = this.#sources.breakerOpenMs();
    const reports = this.#sources.downstreams();
    this.#stats.setDownstreams(reports.map((r) => r.name));
    return reports.map((r) => {
      const t = this.#tracked.get(r.name);
      const view: DownstreamView = { ...r, restarts: t?.restarts ?? 0, breaker: t?.breaker ?? "" };
      if (t?.breaker !== "open" || t.openedAt === undefined) return view;
      const halfOpensAt = t.openedAt + openMs;
      // The breaker turns half-open lazily, on the next call: past its time it is half-open in effect.
      return halfOpensAt <= this.#now() ? { ...view, breaker: "half_open" } : { ...view, halfOpensAt };
    });
  }

  /** The gateway's explanation of a decision, or `undefined` when it offers none. */
  explain(client: string, tool: string): Promise<ExplanationView> | undefined {
    return this.#sources.explain?.(client, tool);
  }

  /** Opens an event stream for one page, or `undefined` when too many are open. */
  openStream(): SseStream | undefined {
    if (this.#streams.size >= this.#maxStreams) return undefined;
    const stream: SseStream = new SseStream(this.#bufferBytes, () => {
      this.#streams.delete(stream);
      if (this.#streams.size === 0) this.#stop();
    });
    const slice = this.#ring.since(0, this.#batchRecords);
    this.#streams.set(stream, { last: slice.last });
    stream.send(encodeEvent("config", JSON.stringify(this.#configEvent())));
    stream.send(encodeEvent("figures", JSON.stringify(this.#figures())));
    stream.send(encodeEvent("audit", JSON.stringify({ records: slice.records, skipped: slice.skipped })));
    this.#timer ??= setInterval(() => this.tick(), this.#batchMs);
    return stream;
  }

  /** Open streams (diagnostics and tests). */
  get streams(): number {
    return this.#streams.size;
  }

  /** Sends one batch to every stream (the timer's work; tests call it directly). */
  tick(): void {
    if (this.#streams.size === 0) return;
    this.#ticks++;
    const encoded = new Map<number, Uint8Array | null>();
    const previous = this.#configSent;
    this.#configEvent();
    // Sent again only when it changed (a reload).
    const config = this.#configSent !== previous ? encodeEvent("config", this.#configSent!) : undefined;
    const figures = this.#ticks % this.#figuresEvery === 0
      ? encodeEvent("figures", JSON.stringify(this.#figures()))
      : undefined;
    for (const [stream, position] of this.#streams) {
      // Streams opened at different times may be at different records: batches are encoded once per
      // starting point (in practice one).
      let chunk = encoded.get(position.last);
      if (chunk === undefined) {
        const slice = this.#ring.since(position.last, this.#batchRecords);
        chunk = slice.records.length === 0 && slice.skipped === 0 ? null : encodeEvent(
          "audit",
          JSON.stringify({ records: slice.records, skipped: slice.skipped }),
        );
        encoded.set(position.last, chunk);
      }
      position.last = this.#ring.last;
      if (config !== undefined && !stream.send(config)) continue;
      if (chunk !== null && !stream.send(chunk)) continue;
      if (figures !== undefined) stream.send(figures);
    }
  }

  /** Ends every stream (gateway shutdown). */
  close(): void {
    for (const stream of [...this.#streams.keys()]) stream.close();
    this.#stop();
  }

  #configEvent(): { config: unknown; reload: ReloadView | null } {
    const event = { config: this.#sources.config(), reload: this.#reload ?? null };
    this.#configSent = JSON.stringify(event);
    return event;
  }

  #figures() {
    return {
      at: this.#now(),
      downstreams: this.downstreams(),
      clients: this.#stats.clients(),
      rates: this.#stats.rates(),
    };
  }

  #track(name: string): Tracked {
    let t = this.#tracked.get(name);
    if (t === undefined) {
      t = { state: "starting", restarts: 0, wasDown: false, breaker: "" };
      this.#tracked.set(name, t);
    }
    return t;
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
