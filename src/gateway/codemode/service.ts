/**
 * Code mode for gateway clients: one CodeMode `Server` per client, built over exactly the tools that
 * client may call, answering `search_api`, `describe_api` and `execute` for it.
 *
 * - A client's server is rebuilt as soon as its catalog may have changed (a downstream's
 *   `tools/list_changed`, a restart, a reload of policy): the gateway says so through
 *   {@link CodeModePort.versions}. Servers are never shared between clients, so discovery never shows
 *   one client what another may call, and a program naming a tool its client may not call fails exactly
 *   as one naming a missing capability.
 * - Every execution gets an id; each native call it makes runs the gateway's whole pipeline as the
 *   client with that id, so it leaves its own audit record carrying it.
 * - Programs of every client run in one sandbox pool (processes when the gateway may spawn them, else
 *   zero-permission workers) whose sandboxes serve one subject each: the subject is the client id, so no
 *   sandbox ever runs two clients' programs, and the pool's fair scheduler keeps one client from taking
 *   more than its share of the slots.
 * - The final value is redacted once more before it leaves, so pieces of a secret a program put
 *   together from several results never reach the client whole.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { allowAll } from "../../../authz.ts";
import { Builder, type Limits, maySpawnProcesses, RegistrationError, type Server } from "../../core/mod.ts";
import { CodeModeError } from "../../errors.ts";
import {
  type ExecutionRequest,
  type Executor,
  InlineExecutor,
  type PoolHealth,
  ProcessPool,
  WorkerPool,
} from "../../executor/mod.ts";
import type { Catalog, JsonObject, JsonValue, Result, Tool } from "../domain/mod.ts";
import { clientCapabilities } from "./capabilities.ts";

/** What code mode needs from the gateway. */
export interface CodeModePort {
  /** The tools `clientId` may call now. */
  listTools(clientId: string): Catalog;
  /**
   * Values that change (by identity) whenever any client's catalog may have changed: the downstream
   * catalog and the policy in force.
   */
  versions(): readonly unknown[];
  /** One call through the whole pipeline as `clientId`, audited with `executionId`. */
  callTool(
    clientId: string,
    name: string,
    args: JsonObject,
    options: { readonly signal: AbortSignal; readonly executionId: string },
  ): Promise<Result>;
  /** Redacts a value with the redactor in force. */
  redact(value: JsonValue): JsonValue;
  /** Operator log. */
  log(line: string): void;
}

/** Which sandbox runs programs. */
export type SandboxChoice = "process" | "worker" | "inline";

/** Options of {@link CodeModeService}. */
export interface CodeModeOptions {
  /** Budgets of every execution (the core's `Limits`; absent fields take its defaults). */
  readonly limits?: Partial<Limits>;
  /** The sandbox (default: processes when the gateway may spawn them, else workers). */
  readonly sandbox?: SandboxChoice;
  /** Deadline of the sandbox probe at first use (default 30000 ms). */
  readonly probeTimeoutMs?: number;
}

interface Entry {
  readonly versions: readonly unknown[];
  readonly limits: Partial<Limits> | undefined;
  readonly server: Promise<Server>;
}

const executions = new AsyncLocalStorage<string>();

/**
 * An executor facade over the shared pool for one client's server: it re-installs the execution id
 * around each native call (the pool answers calls from its own event handlers, outside the execute
 * call's async context), and closing a client's server leaves the shared pool running.
 */
class ClientExecutor implements Executor {
  readonly #shared: Executor;
  constructor(shared: Executor) {
    this.#shared = shared;
  }
  run(request: ExecutionRequest): Promise<unknown> {
    const id = executions.getStore();
    if (id === undefined) return this.#shared.run(request);
    const dispatch = request.dispatch;
    return this.#shared.run({
      ...request,
      dispatch: (index, args, signal) => executions.run(id, () => dispatch(index, args, signal)),
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function sameVersions(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Per-client code mode over a gateway. */
export class CodeModeService {
  readonly #port: CodeModePort;
  #options: CodeModeOptions;
  readonly #entries = new Map<string, Entry>();
  #shared: Promise<Executor> | undefined;
  #pool: { health(): PoolHealth } | undefined;
  #closed = false;

  /** Creates the service; nothing starts until a client first uses code mode. */
  constructor(port: CodeModePort, options: CodeModeOptions = {}) {
    this.#port = port;
    this.#options = options;
  }

  /** Replaces the limits for servers built from now on (a reload); the sandbox pool stays. */
  reconfigure(options: CodeModeOptions): void {
    this.#options = { ...options, sandbox: this.#options.sandbox };
  }

  /**
   * The sandbox pool's health once code mode has started one (`undefined` before, and for the inline
   * sandbox): `degraded` while a sandbox that did not stop when asked holds a slot.
   */
  health(): PoolHealth | undefined {
    return this.#pool?.health();
  }

  /** The limits of executions started from now on. */
  get limits(): Partial<Limits> | undefined {
    return this.#options.limits;
  }

  #executor(): Promise<Executor> {
    this.#shared ??= (async () => {
      const limits = this.#options.limits ?? {};
      const sandbox = this.#options.sandbox ?? (maySpawnProcesses() ? "process" : "worker");
      const sizing = { maxConcurrentExecutions: limits.maxConcurrentExecutions || 8 };
      if (sandbox === "inline") return new InlineExecutor(sizing);
      const pool = sandbox === "process"
        ? new ProcessPool({ ...sizing, maxMemoryBytes: limits.maxMemoryBytes || undefined })
        : new WorkerPool(sizing);
      try {
        await pool.probe({ timeout: this.#options.probeTimeoutMs ?? 30_000 });
      } catch (err) {
        await pool.close().catch(() => {});
        throw err;
      }
      this.#pool = pool;
      return pool;
    })();
    const shared = this.#shared;
    // A failed probe is not remembered: the next use tries again.
    shared.catch(() => {
      if (this.#shared === shared) this.#shared = undefined;
    });
    return shared;
  }

  /** The server of `clientId` over the tools it may call now (built, or rebuilt when stale). */
  serverFor(clientId: string): Promise<Server> {
    if (this.#closed) return Promise.reject(new CodeModeError("internal", "code mode is closed"));
    const versions = this.#port.versions();
    const limits = this.#options.limits;
    const cached = this.#entries.get(clientId);
    if (cached !== undefined && sameVersions(cached.versions, versions) && cached.limits === limits) {
      return cached.server;
    }
    // Whatever made this entry stale made every other one stale too: drop them (a removed client's
    // server must not linger), each is rebuilt on its client's next use.
    for (const [id, e] of this.#entries) {
      if (id !== clientId && (!sameVersions(e.versions, versions) || e.limits !== limits)) {
        this.#entries.delete(id);
        void e.server.then((s) => s.close(), () => {});
      }
    }
    const server = this.#build(clientId, this.#port.listTools(clientId).tools, limits);
    const entry: Entry = { versions, limits, server };
    this.#entries.set(clientId, entry);
    server.catch(() => {
      if (this.#entries.get(clientId) === entry) this.#entries.delete(clientId);
    });
    // The server it replaces holds nothing of its own (the pool is shared): closing it is bookkeeping.
    void cached?.server.then((s) => s.close(), () => {});
    return server;
  }

  async #build(
    clientId: string,
    tools: readonly Tool[],
    limits: Partial<Limits> | undefined,
  ): Promise<Server> {
    const shared = await this.#executor();
    const port = this.#port;
    const { definitions, diagnostics } = clientCapabilities(tools, (tool, args, { signal }) => {
      const executionId = executions.getStore();
      if (executionId === undefined) throw new CodeModeError("internal", "native call outside an execution");
      return port.callTool(clientId, tool.name, args, { signal, executionId });
    });
    for (const line of diagnostics) port.log(`gateway: code mode for client ${clientId}: ${line}`);
    const executor = new ClientExecutor(shared);
    let kept = definitions;
    // A tool the core refuses (its metadata, its shape) is left out with the core's diagnostic, never
    // the whole catalog: build once more without the capabilities a diagnostic names.
    for (let attempt = 0;; attempt++) {
      const builder = new Builder({ authorizer: allowAll(), limits, executor });
      for (const def of kept) builder.register(def);
      try {
        return await builder.build();
      } catch (err) {
        if (!(err instanceof RegistrationError) || attempt > 0) throw err;
        const named = (d: string) =>
          kept.filter((def) => d.includes(`capability ${JSON.stringify(def.name)}`));
        const refused = new Set(err.diagnostics.flatMap(named));
        if (refused.size === 0) throw err;
        for (const d of err.diagnostics) {
          port.log(`gateway: code mode for client ${clientId}: left out: ${d}`);
        }
        kept = kept.filter((def) => !refused.has(def));
      }
    }
  }

  /**
   * Runs one program as `clientId`. Resolves with the redacted final value and the execution id its
   * native calls were audited with (`executionId`, or a fresh UUID); rejects like `Server.execute`.
   */
  async execute(
    clientId: string,
    source: string,
    signal?: AbortSignal,
    executionId: string = crypto.randomUUID(),
  ): Promise<{ readonly value: unknown; readonly executionId: string }> {
    const server = await this.serverFor(clientId);
    const value = await executions.run(
      executionId,
      () => server.execute({ id: clientId }, source, signal === undefined ? {} : { signal }),
    );
    return { value: this.#port.redact((value ?? null) as JsonValue), executionId };
  }

  /** Ends the sandbox pool; later calls fail with `internal`. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.allSettled(entries.map((e) => e.server.then((s) => s.close())));
    const shared = this.#shared;
    this.#shared = undefined;
    this.#pool = undefined;
    if (shared !== undefined) await shared.then((e) => e.close(), () => {});
  }
}
