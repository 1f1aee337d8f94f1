/**
 * Every configured downstream behind one {@link Dispatcher}: the full namespaced catalog, routing a call
 * to its downstream, the breaker's ping probe, and applying a new configuration (start what was added,
 * restart what changed, stop what was removed) without touching the rest.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import {
  type Call,
  type CallContext,
  Catalog,
  type Dispatcher,
  GatewayError,
  type JsonObject,
  type JsonValue,
  makeResult,
  makeTool,
  type Result,
  type Tool,
  toolRef,
} from "../domain/mod.ts";
import { Downstream, type DownstreamEvents, type DownstreamOptions } from "./downstream.ts";
import { sameDownstream } from "../config/mod.ts";
import type { DownstreamSpec } from "./spec.ts";

/** Options of a {@link DownstreamRegistry}. */
export interface RegistryOptions extends Omit<DownstreamOptions, "events"> {
  /** Event sinks shared by every downstream. */
  readonly events?: DownstreamEvents;
  /** Called after the full catalog changed. */
  readonly onCatalogChanged?: (catalog: Catalog) => void;
}

function asJsonObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as JsonObject
    : undefined;
}

/**
 * A downstream's listing as domain tools. A tool whose name cannot be namespaced is left out (and
 * logged) rather than failing the whole downstream.
 */
export function toDomainTools(
  downstream: string,
  tools: readonly SdkTool[],
  log?: (message: string) => void,
): Tool[] {
  const out: Tool[] = [];
  for (const t of tools) {
    try {
      out.push(makeTool({
        ref: toolRef(downstream, t.name),
        ...(typeof t.title === "string" ? { title: t.title } : {}),
        ...(typeof t.description === "string" ? { description: t.description } : {}),
        inputSchema: asJsonObject(t.inputSchema) ?? { type: "object" },
        ...(asJsonObject(t.outputSchema) ? { outputSchema: t.outputSchema as JsonObject } : {}),
        ...(asJsonObject(t.annotations) ? { annotations: t.annotations as JsonObject } : {}),
        ...(t.icons !== undefined ? { icons: t.icons as JsonValue } : {}),
      }));
    } catch {
      log?.(`tool with an unusable name left out of ${downstream}'s catalog`);
    }
  }
  return out;
}

/** The downstreams of one gateway. */
export class DownstreamRegistry implements Dispatcher {
  readonly #options: RegistryOptions;
  readonly #downstreams = new Map<string, Downstream>();
  /** Each downstream's tools in domain form, by downstream name. */
  readonly #tools = new Map<string, Tool[]>();
  #order: string[] = [];
  #catalog: Catalog = Catalog.EMPTY;
  #closed = false;

  /** Creates an empty registry; {@link DownstreamRegistry.apply} starts downstreams. */
  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  /** The full namespaced catalog, in configuration order (before any policy filtering). */
  get catalog(): Catalog {
    return this.#catalog;
  }

  /** The supervisor of `name`, if configured. */
  get(name: string): Downstream | undefined {
    return this.#downstreams.get(name);
  }

  /** Every supervisor, in configuration order. */
  get downstreams(): Downstream[] {
    return this.#order.map((n) => this.#downstreams.get(n)!).filter((d) => d !== undefined);
  }

  #events(): DownstreamEvents {
    const outer = this.#options.events;
    return {
      ...outer,
      toolsChanged: (name, tools) => {
        if (this.#downstreams.get(name) === undefined) return;
        this.#tools.set(name, toDomainTools(name, tools, (m) => outer?.log?.(name, m)));
        this.#rebuild();
        outer?.toolsChanged?.(name, tools);
      },
    };
  }

  #rebuild(): void {
    const all: Tool[] = [];
    for (const name of this.#order) all.push(...(this.#tools.get(name) ?? []));
    this.#catalog = new Catalog(all);
    this.#options.onCatalogChanged?.(this.#catalog);
  }

  /**
   * Makes the running set match `specs`: unchanged downstreams keep running, changed ones are stopped
   * and started again, removed ones are stopped (their processes end), new ones are started. Starts
   * run concurrently and resolve when each is up or has failed; one failing never affects the others.
   */
  async apply(specs: readonly DownstreamSpec[]): Promise<void> {
    if (this.#closed) throw new GatewayError("unavailable", "registry closed");
    const wanted = new Map(specs.map((s) => [s.name, s]));
    const stopping: Promise<void>[] = [];
    for (const [name, running] of this.#downstreams) {
      const next = wanted.get(name);
      if (next === undefined || !sameDownstream(running.spec, next)) {
        this.#downstreams.delete(name);
        this.#tools.delete(name);
        stopping.push(running.stop());
      }
    }
    const starting: Downstream[] = [];
    for (const spec of specs) {
      if (this.#downstreams.has(spec.name)) continue;
      const d = new Downstream(spec, { ...this.#options, events: this.#events() });
      this.#downstreams.set(spec.name, d);
      starting.push(d);
    }
    this.#order = specs.map((s) => s.name);
    this.#rebuild();
    await Promise.allSettled(stopping);
    await Promise.allSettled(starting.map((d) => d.start()));
  }

  /** Routes `call` to its downstream; the result is the downstream's `CallToolResult` as received. */
  async dispatch(call: Call, ctx: CallContext): Promise<Result> {
    const downstream = this.#downstreams.get(call.tool.downstream);
    if (downstream === undefined) throw new GatewayError("unknown_tool", "no such downstream");
    const payload = await downstream.call(call.tool.tool, call.args, {
      clientId: call.client.id,
      signal: ctx.signal,
      onNotification: (n) => ctx.notify({ method: n.method, params: n.params as JsonObject }),
      onTruncated: () => (ctx.trace.truncated = true),
    });
    return makeResult(payload as JsonObject);
  }

  /** An MCP ping to `downstream` (restarting it first when it has no live session). */
  async probe(downstream: string, signal: AbortSignal): Promise<void> {
    const d = this.#downstreams.get(downstream);
    if (d === undefined) throw new GatewayError("unknown_tool", "no such downstream");
    await d.probe(signal);
  }

  /** Stops every downstream and waits until their processes have ended. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#downstreams.values()];
    this.#downstreams.clear();
    await Promise.allSettled(all.map((d) => d.stop()));
  }
}
