/**
 * One configured downstream server, supervised: its session (shared) or its bounded pool of per-client
 * sessions, its last known tool list, restarts with exponential back-off when it crash-loops, and
 * refreshes on `tools/list_changed`. A call never waits for a restart and is never retried here: it
 * fails at once with a classified error, and the breaker (outside) decides what happens next.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError } from "../domain/mod.ts";
import { DownstreamSession, type SessionCallOptions } from "./session.ts";
import type { DownstreamSpec } from "./spec.ts";

/** The lifecycle state of a downstream. */
export type DownstreamState = "starting" | "up" | "down" | "stopped";

/** Events a downstream reports (metrics and logs are wired to them by the composition root). */
export interface DownstreamEvents {
  /** The tool list changed (first listing, a refresh, or a `tools/list_changed`). */
  toolsChanged?(name: string, tools: readonly SdkTool[]): void;
  /** The downstream went up or down. */
  stateChanged?(name: string, state: DownstreamState): void;
  /** Per-client sessions in use changed. */
  poolInUse?(name: string, inUse: number): void;
  /** A per-client session was refused because the pool was full. */
  poolExhausted?(name: string): void;
  /** Operator log line (never shown to clients). */
  log?(name: string, message: string, cause?: unknown): void;
}

/** Options of a {@link Downstream}. */
export interface DownstreamOptions {
  /** Reads a host environment variable. */
  readonly hostEnv: (name: string) => string | undefined;
  /** Event sinks. */
  readonly events?: DownstreamEvents;
  /** First restart delay after a crash in milliseconds (default 500); doubles per consecutive crash. */
  readonly backoffBaseMs?: number;
  /** Longest restart delay (default 30000). */
  readonly backoffMaxMs?: number;
  /** A session that lived this long was not crash-looping: the back-off resets (default 10000). */
  readonly stableMs?: number;
  /** Milliseconds allowed for spawn, initialize and the first listing (default 60000: a cold npm cache). */
  readonly startTimeoutMs?: number;
  /** Receives stdio children's stderr (default: dropped, it may carry secrets). */
  readonly onStderr?: (name: string, chunk: Uint8Array) => void;
  /**
   * The result size cap (`max_result_bytes`), read per answer: enforced while an answer is read, so no
   * answer is ever held whole past it (default: none at this layer).
   */
  readonly maxResultBytes?: () => number;
}

const DEFAULT_START_TIMEOUT_MS = 60_000;

interface Slot {
  session: DownstreamSession;
  /** The client a per-client session belongs to; `undefined` for the shared or a not-yet-assigned one. */
  owner: string | undefined;
  openedAt: number;
  lastUsed: number;
  /** Calls holding the slot, counted from acquisition (before the request is even sent). */
  busy: number;
}

function hold(slot: Slot): Slot {
  slot.busy++;
  return slot;
}

/** A supervised downstream. Call {@link Downstream.start} once, {@link Downstream.stop} at the end. */
export class Downstream {
  /** Its configuration. */
  readonly spec: DownstreamSpec;
  readonly #options: DownstreamOptions;
  readonly #slots: Slot[] = [];
  #opening = 0;
  #tools: readonly SdkTool[] = [];
  #state: DownstreamState = "starting";
  #crashes = 0;
  #restartTimer: ReturnType<typeof setTimeout> | undefined;
  #restarting: Promise<void> | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;

  /** Creates the supervisor; nothing is spawned before {@link Downstream.start}. */
  constructor(spec: DownstreamSpec, options: DownstreamOptions) {
    this.spec = spec;
    this.#options = options;
  }

  /** The configured name. */
  get name(): string {
    return this.spec.name;
  }

  /** The current state. */
  get state(): DownstreamState {
    return this.#state;
  }

  /** The last tool list (kept while the downstream is down, so views stay stable). */
  get tools(): readonly SdkTool[] {
    return this.#tools;
  }

  /** The pids of live stdio children (for tests and diagnostics). */
  get pids(): number[] {
    return this.#slots.map((s) => s.session.pid).filter((p): p is number => p !== undefined);
  }

  get #perClient(): boolean {
    return this.spec.sessionMode === "per_client";
  }

  get #poolSize(): number {
    return this.#perClient ? Math.max(1, this.spec.pool) : 1;
  }

  /**
   * Opens the first session and lists its tools. Never throws: a failure leaves the downstream `down`
   * with a restart scheduled, and the other downstreams are unaffected.
   */
  async start(): Promise<void> {
    await this.#restart();
  }

  #setState(state: DownstreamState): void {
    if (this.#state === state || this.#state === "stopped") return;
    this.#state = state;
    this.#options.events?.stateChanged?.(this.name, state);
  }

  async #open(owner: string | undefined): Promise<Slot> {
    this.#opening++;
    try {
      const holder: { slot?: Slot } = {};
      const session = await DownstreamSession.open(this.spec, {
        hostEnv: this.#options.hostEnv,
        perClient: this.#perClient,
        maxResultBytes: this.#options.maxResultBytes,
        onToolsChanged: () => {
          if (holder.slot !== undefined) this.#refresh(holder.slot);
        },
        onLost: (cause) => {
          if (holder.slot !== undefined) this.#lost(holder.slot, cause);
        },
        onStderr: this.#options.onStderr === undefined
          ? undefined
          : (chunk) => this.#options.onStderr?.(this.name, chunk),
      }, this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
      const now = Date.now();
      holder.slot = { session, owner, openedAt: now, lastUsed: now, busy: 0 };
      if (this.#state === "stopped") {
        await session.close();
        throw new GatewayError("unavailable", "downstream stopped");
      }
      this.#slots.push(holder.slot);
      this.#reportPool();
      return holder.slot;
    } finally {
      this.#opening--;
    }
  }

  /** Opens a session and lists tools; on failure schedules the next attempt with back-off. */
  #restart(): Promise<void> {
    this.#restarting ??= (async () => {
      try {
        const slot = this.#slots.find((s) => !s.session.closed) ?? await this.#open(undefined);
        this.#setTools(await slot.session.listTools());
        this.#setState("up");
      } catch (err) {
        if (this.#state === "stopped") return;
        this.#crashes++;
        this.#setState("down");
        this.#options.events?.log?.(this.name, "failed to start or list tools", err);
        this.#scheduleRestart();
      } finally {
        this.#restarting = undefined;
      }
    })();
    return this.#restarting;
  }

  #scheduleRestart(): void {
    if (this.#state === "stopped" || this.#restartTimer !== undefined) return;
    const base = this.#options.backoffBaseMs ?? 500;
    const delay = Math.min(this.#options.backoffMaxMs ?? 30_000, base * 2 ** Math.max(0, this.#crashes - 1));
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      void this.#restart();
    }, delay);
  }

  #lost(slot: Slot, cause: unknown): void {
    this.#remove(slot);
    if (this.#state === "stopped") return;
    const lived = Date.now() - slot.openedAt;
    if (lived >= (this.#options.stableMs ?? 10_000)) this.#crashes = 0;
    this.#crashes++;
    this.#options.events?.log?.(this.name, "session lost", cause);
    if (this.#slots.length === 0) {
      this.#setState("down");
      this.#scheduleRestart();
    }
  }

  #remove(slot: Slot): void {
    const at = this.#slots.indexOf(slot);
    if (at >= 0) {
      this.#slots.splice(at, 1);
      this.#reportPool();
    }
  }

  #reportPool(): void {
    if (this.#perClient) {
      this.#options.events?.poolInUse?.(this.name, this.#slots.filter((s) => s.owner !== undefined).length);
    }
  }

  #setTools(tools: readonly SdkTool[]): void {
    this.#tools = Object.freeze([...tools]);
    this.#options.events?.toolsChanged?.(this.name, this.#tools);
  }

  /** Re-lists tools after `tools/list_changed`, coalescing bursts into one listing at a time. */
  #refresh(slot: Slot): void {
    if (this.#refreshing !== undefined) {
      this.#refreshAgain = true;
      return;
    }
    this.#refreshing = (async () => {
      do {
        this.#refreshAgain = false;
        try {
          this.#setTools(await slot.session.listTools());
        } catch (err) {
          this.#options.events?.log?.(this.name, "tool list refresh failed", err);
        }
      } while (this.#refreshAgain && !slot.session.closed);
    })().finally(() => {
      this.#refreshing = undefined;
    });
  }

  /**
   * The session `clientId` uses. Shared: the one live session. Per-client: the client's own, else a
   * free or unassigned one, else a new one while the pool has room, else the least recently used idle
   * session of another client is closed to make room; with every slot busy it fails fast with
   * `pool_exhausted`.
   */
  async #acquire(clientId: string): Promise<Slot> {
    if (this.#state === "stopped") throw new GatewayError("unavailable", "downstream stopped");
    const live = this.#slots.filter((s) => !s.session.closed);
    if (!this.#perClient) {
      if (live.length > 0) return hold(live[0]);
      throw new GatewayError("downstream_unavailable", "downstream is down");
    }
    const own = live.find((s) => s.owner === clientId) ?? live.find((s) => s.owner === undefined);
    if (own !== undefined) {
      own.owner = clientId;
      this.#reportPool();
      return hold(own);
    }
    // While a crash-looping server waits out its back-off, no new process is started for anybody.
    if (this.#restartTimer !== undefined || this.#restarting !== undefined) {
      throw new GatewayError("downstream_unavailable", "downstream is restarting");
    }
    if (live.length + this.#opening >= this.#poolSize) {
      const idle = live.filter((s) => s.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle === undefined) {
        this.#options.events?.poolExhausted?.(this.name);
        throw new GatewayError("pool_exhausted", "per-client session pool is full");
      }
      this.#remove(idle);
      // Reserve the freed slot before awaiting, so a concurrent acquisition cannot take it too.
      this.#opening++;
      try {
        await idle.session.close();
      } finally {
        this.#opening--;
      }
    }
    return hold(await this.#open(clientId));
  }

  /** Calls `tool` for `clientId`; the result object is the downstream's `CallToolResult` as received. */
  async call(
    tool: string,
    args: Record<string, unknown> | undefined,
    options: SessionCallOptions,
  ): Promise<Record<string, unknown>> {
    const slot = await this.#acquire(options.clientId);
    slot.lastUsed = Date.now();
    try {
      const result = await slot.session.callTool(tool, args, options);
      // An http downstream has no connection to lose: an answer is what shows it is up again.
      if (this.#state === "down" && !slot.session.closed) this.#setState("up");
      return result;
    } catch (err) {
      if (err instanceof GatewayError && err.code === "downstream_unavailable") this.#setState("down");
      throw err;
    } finally {
      slot.busy--;
      slot.lastUsed = Date.now();
    }
  }

  /**
   * The breaker's recovery probe: an MCP ping on a live session, restarting the downstream first when
   * it has none. Throws when the downstream does not answer.
   */
  async probe(signal?: AbortSignal): Promise<void> {
    if (this.#state === "stopped") throw new GatewayError("unavailable", "downstream stopped");
    const live = this.#slots.find((s) => !s.session.closed);
    if (live !== undefined) {
      try {
        await live.session.ping(signal);
        this.#setState("up");
        return;
      } catch (err) {
        if (signal?.aborted) throw err;
        // The session is stale (an http server that restarted forgot it; a hung child): replace every
        // session of this downstream and probe the fresh one.
        for (const s of this.#slots.splice(0)) void s.session.close();
        this.#reportPool();
      }
    }
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    await this.#restart();
    const fresh = this.#slots.find((s) => !s.session.closed);
    if (fresh === undefined) throw new GatewayError("downstream_unavailable", "downstream is down");
    await fresh.session.ping(signal);
    this.#setState("up");
  }

  /** Kills every child process group at once (tests: a crash). */
  killForTest(): void {
    for (const s of this.#slots) s.session.kill();
  }

  /** Stops supervising and closes every session (ending stdio children's process groups). */
  async stop(): Promise<void> {
    this.#setState("stopped");
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    const slots = this.#slots.splice(0);
    await Promise.allSettled(slots.map((s) => s.session.close()));
    await this.#restarting?.catch(() => {});
    // A session that finished opening during the stop was closed by #open; close any straggler.
    await Promise.allSettled(this.#slots.splice(0).map((s) => s.session.close()));
  }
}
