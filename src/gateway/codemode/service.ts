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
 * - Everything that leaves an execution passes the gateway's redactor once more: the final value, and
 *   the message and detail of a failure (`fail(s)`, `int(s)`, a missing dict key `s` all quote `s`), so
 *   pieces of a secret a program put together from several results never reach the client whole.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { allowAll } from "../../../authz.ts";
import {
  Builder,
  type ExecuteResult,
  type Limits,
  maySpawnProcesses,
  RegistrationError,
  type Server,
} from "../../core/mod.ts";
import { CodeModeError } from "../../errors.ts";
import {
  type ExecutionRequest,
  type Executor,
  InlineExecutor,
  type PoolHealth,
  ProcessPool,
  WorkerPool,
} from "../../executor/mod.ts";
import type { AuditRecord, Catalog, JsonObject, JsonValue, Result, Tool } from "../domain/mod.ts";
import type { SearchResponse } from "../../search/mod.ts";
import type { Description } from "../../core/mod.ts";
import { clientCapabilities } from "./capabilities.ts";
import { codeModeRecord, dottedReferences, outcomeOf, refusedToolNames, sha256Hex } from "./audit.ts";

/** What an execution through code mode answers: the redacted value and printed output, and its id. */
export interface CodeModeOutcome {
  /** The value of `main()`, redacted. */
  readonly value: unknown;
  /** The execution id (its audit records carry it). */
  readonly executionId: string;
  /** What the program printed, redacted (absent when nothing). */
  readonly output?: string;
}

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
  /**
   * Writes the record of a code-mode tool call (`execute`, `search_api`, `describe_api`). Rejects with
   * `audit_unavailable` when a security record cannot be written (the call then fails closed). Without
   * it, code mode writes no records of its own.
   */
  audit?(record: AuditRecord): Promise<void>;
  /**
   * Audits a tool a program (or `describe_api`) named that `clientId` cannot reach, exactly as the same
   * passthrough call: its denial reason, or `not_found`. Rejects like {@link CodeModePort.audit}.
   */
  refuse?(clientId: string, toolName: string, executionId?: string): Promise<void>;
  /** Every tool of the catalog before policy (to tell which tool a refused reference names). */
  allTools?(): readonly Tool[];
  /** The configured downstream names (a reference to a down downstream's tool is still one). */
  downstreamNames?(): readonly string[];
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
  /** Native calls made so far by each execution in progress (its `execute` record counts them). */
  readonly #nativeCalls = new Map<string, number>();
  /** The capability names each built server offers (what a program's references are checked against). */
  readonly #visible = new WeakMap<Server, ReadonlySet<string>>();

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
      const made = this.#nativeCalls.get(executionId);
      if (made !== undefined) this.#nativeCalls.set(executionId, made + 1);
      return port.callTool(clientId, tool.name, args, { signal, executionId });
    });
    for (const line of diagnostics) port.log(`gateway: code mode for client ${clientId}: ${line}`);
    const executor = new ClientExecutor(shared);
    let kept = definitions;
    // A tool the core refuses (its metadata, its shape) is left out with the core's diagnostic, never
    // the whole catalog: build once more without the capabilities a diagnostic names.
    for (let attempt = 0;; attempt++) {
      // Every native call's failure is already in the audit trail (redacted); the core's default stderr
      // log of failing handlers would repeat downstream text unredacted, so it is replaced by nothing.
      const builder = new Builder({ authorizer: allowAll(), limits, executor, onError: () => {} });
      for (const def of kept) builder.register(def);
      try {
        const server = await builder.build();
        this.#visible.set(server, new Set(kept.map((def) => def.name)));
        return server;
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
   *
   * Audited (when the port writes records): each tool the source names that the client cannot reach
   * gets the record its passthrough call would (denied or `not_found`, with this execution id), then the
   * execution its own `execute` record (outcome, duration, native call count, the source's SHA-256).
   * A record that cannot be written fails the execution closed (`audit_unavailable`).
   */
  async execute(
    clientId: string,
    source: string,
    signal?: AbortSignal,
    executionId: string = crypto.randomUUID(),
  ): Promise<CodeModeOutcome> {
    const started = performance.now();
    this.#nativeCalls.set(executionId, 0);
    let outcome: CodeModeOutcome | undefined;
    let failure: unknown;
    let server: Server | undefined;
    try {
      server = await this.serverFor(clientId);
      outcome = await this.#execute(server, clientId, source, signal, executionId);
    } catch (err) {
      failure = err;
    }
    const nativeCalls = this.#nativeCalls.get(executionId) ?? 0;
    this.#nativeCalls.delete(executionId);
    const audit = this.#port.audit;
    if (audit !== undefined) {
      if (typeof source === "string" && server !== undefined) {
        for (const name of this.#refused(server, dottedReferences(source))) {
          await this.#port.refuse?.(clientId, name, executionId);
        }
      }
      await audit(codeModeRecord({
        clientId,
        tool: "execute",
        outcome: outcomeOf(failure, signal),
        latencyMs: performance.now() - started,
        now: new Date(),
        executionId,
        nativeCalls,
        sourceSha256: await sha256Hex(typeof source === "string" ? source : ""),
      }));
    }
    if (outcome === undefined) throw failure;
    return outcome;
  }

  /**
   * The record of a code-mode tool call whose arguments were not the one string it takes (it never
   * reached a server): outcome `invalid_arguments`. Rejects like the port's `audit`.
   */
  async recordInvalidArguments(
    clientId: string,
    tool: "execute" | "search_api" | "describe_api",
  ): Promise<void> {
    await this.#port.audit?.(codeModeRecord({
      clientId,
      tool,
      outcome: "invalid_arguments",
      latencyMs: 0,
      now: new Date(),
    }));
  }

  /** The gateway tool names behind `references` that `server` does not offer (see `refusedToolNames`). */
  #refused(server: Server, references: readonly string[]): string[] {
    const visible = this.#visible.get(server);
    if (visible === undefined || references.length === 0) return [];
    return refusedToolNames(
      references,
      visible,
      this.#port.allTools?.() ?? [],
      this.#port.downstreamNames?.() ?? [],
    );
  }

  /**
   * `search_api` for `clientId`: the search over its own server, audited as a `search_api` record (the
   * query is not recorded: it is client input).
   */
  async search(clientId: string, query: string): Promise<SearchResponse> {
    return await this.#audited(
      clientId,
      "search_api",
      async () => (await this.serverFor(clientId)).search(query),
    );
  }

  /**
   * `describe_api` for `clientId`, audited as a `describe_api` record. A name its server does not offer
   * fails `not_found` whether the tool is missing or forbidden; when it names a tool of a configured
   * downstream, that tool also gets the record its passthrough call would (the audit alone tells a
   * forbidden tool from a missing one).
   */
  async describe(clientId: string, name: string): Promise<Description> {
    let server: Server | undefined;
    return await this.#audited(clientId, "describe_api", async () => {
      server = await this.serverFor(clientId);
      return server.describe(name);
    }, async () => {
      if (server === undefined || typeof name !== "string" || !/^[^.\s]+\.[^.\s]+$/.test(name)) return;
      for (const tool of this.#refused(server, [name])) await this.#port.refuse?.(clientId, tool);
    });
  }

  async #audited<T>(
    clientId: string,
    tool: "search_api" | "describe_api",
    run: () => Promise<T>,
    onFailure?: () => Promise<void>,
  ): Promise<T> {
    const started = performance.now();
    let value: T | undefined;
    let failure: unknown;
    let failed = false;
    try {
      value = await run();
    } catch (err) {
      failed = true;
      failure = err;
    }
    const audit = this.#port.audit;
    if (audit !== undefined) {
      if (failed) await onFailure?.();
      await audit(codeModeRecord({
        clientId,
        tool,
        outcome: failed ? outcomeOf(failure ?? new Error("failed")) : "ok",
        latencyMs: performance.now() - started,
        now: new Date(),
      }));
    }
    if (failed) throw failure;
    return value as T;
  }

  async #execute(
    server: Server,
    clientId: string,
    source: string,
    signal: AbortSignal | undefined,
    executionId: string,
  ): Promise<CodeModeOutcome> {
    let result: ExecuteResult;
    try {
      result = await executions.run(
        executionId,
        () => server.run({ id: clientId }, source, signal === undefined ? {} : { signal }),
      );
    } catch (err) {
      throw this.#redactError(err);
    }
    // What the program printed is program output like its result: it may quote a secret it assembled.
    const value = this.redact((result.value ?? null) as JsonValue);
    return result.output === undefined
      ? { value, executionId }
      : { value, executionId, output: this.redact(result.output) };
  }

  /**
   * Redacts a value that leaves code mode (a result, an error text, a listing) with the redactor in
   * force: the one place every outcome of `search_api`, `describe_api` and `execute` passes.
   */
  redact<T extends JsonValue>(value: T): T {
    return this.#port.redact(value) as T;
  }

  /**
   * A failure whose message and detail are redacted. The program chose what its error quotes, so both
   * may hold a secret it assembled; the original stays only as the (never shown) cause.
   */
  #redactError(err: unknown): unknown {
    if (!(err instanceof CodeModeError)) return err;
    const message = this.redact(err.message);
    const detail = err.detail === undefined ? undefined : this.redact(err.detail);
    const output = err.output === undefined ? undefined : this.redact(err.output);
    if (message === err.message && detail === err.detail && output === err.output) return err;
    return new CodeModeError(err.code, message, {
      ...(detail === undefined ? {} : { detail }),
      ...(output === undefined ? {} : { output }),
      cause: err,
    });
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
