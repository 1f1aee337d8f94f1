/**
 * The composition root of the MCP security gateway: it builds the downstream registry, the policy,
 * the redactor, the audit writer, the breakers and the metrics from one validated configuration, joins
 * them in the pipeline, and serves the HTTP edge. It is the only module that knows every layer; none of
 * them imports it back. What it derives from a configuration for its layers is in `wiring.ts`; its public
 * shapes are in `gateway_types.ts`.
 *
 * @module
 */
import { type GatewayConfig, sameDownstream } from "./config/mod.ts";
import { type Catalog, GatewayError, type Identity, type JsonValue, type Result } from "./domain/mod.ts";
import { DownstreamRegistry } from "./downstream/mod.ts";
import { type ClientSurface, type ConnectionInfo, HttpEdge, serveStdioClient } from "./http/mod.ts";
import { type CallAuthorizerPort, type CallOptions, Pipeline } from "./pipeline/mod.ts";
import { CatalogRedaction } from "./redact/mod.ts";
import { buildParts, type GatewayParts } from "./parts.ts";
import { AuditTap } from "./audit/mod.ts";
import { GatewayConsole } from "./console.ts";
import { isConsolePath } from "../console/mod.ts";
import { answerCodeModeTool, CodeModeService, codeModeTools, isCodeModeTool } from "./codemode/mod.ts";
import type { ServeMode } from "./config/mod.ts";
import { Limits } from "../limits/mod.ts";
import {
  describe,
  edgeSettings,
  hostPort,
  limitsEvents,
  loadCallAuthorizer,
  pipelineSettings,
  stderrLines,
} from "./wiring.ts";
import type { DownstreamStatus, GatewayOptions, ReloadOutcome, ServeAddresses } from "./gateway_types.ts";

export type { DownstreamStatus, GatewayOptions, ReloadOutcome, ServeAddresses } from "./gateway_types.ts";

/** A running gateway. */
export class Gateway {
  #config: GatewayConfig;
  readonly #options: GatewayOptions;
  readonly #registry: DownstreamRegistry;
  readonly #parts: GatewayParts;
  readonly #pipeline: Pipeline;
  readonly #catalogView: CatalogRedaction;
  readonly #edge: HttpEdge;
  /** The audit port every record goes through: the writer, tapped for the operator console. */
  readonly #audit: AuditTap;
  /** The operator console (`/console`), fed by the audit tap and the downstream and breaker events. */
  readonly #console: GatewayConsole;
  /**
   * What a client sees and calls, whichever way it came in: its `tools/list` (code mode's three tools,
   * the catalog, or both, by its mode) and its calls. The HTTP edge serves it; {@link Gateway.serveStdio}
   * serves it to the client named on the command line.
   */
  readonly #surface: ClientSurface;
  readonly #codemode: CodeModeService;
  /** The call limits in force (kept across reloads so kept rules keep their counters). */
  #limits: Limits | undefined;
  readonly #codeModeTools = new Map<
    string,
    { readonly key: readonly unknown[]; readonly tools: ReturnType<typeof codeModeTools> }
  >();
  readonly #inFlight = new Set<AbortController>();
  readonly #idle: (() => void)[] = [];
  readonly #servers: Deno.HttpServer[] = [];
  #accepting = true;
  #closing: Promise<void> | undefined;

  private constructor(
    config: GatewayConfig,
    options: GatewayOptions,
    registry: DownstreamRegistry,
    parts: GatewayParts,
    authorizer: CallAuthorizerPort | undefined,
    limits: Limits | undefined,
  ) {
    this.#config = config;
    this.#options = options;
    this.#registry = registry;
    this.#parts = parts;
    const metrics = parts.metrics;
    this.#limits = limits;
    const settings = pipelineSettings(config, authorizer, limits);
    this.#catalogView = new CatalogRedaction(options.log ?? ((line: string) => console.error(line)));
    this.#audit = new AuditTap(parts.audit);
    this.#console = new GatewayConsole({
      config: () => this.#config,
      downstreams: () => this.downstreams,
      listed: () => this.#registry.downstreams,
      configFile: options.configFile,
      redact: (value) => this.#pipeline.settings.redactor.redactValue(value).value,
    });
    this.#audit.listen(this.#console.live.record);
    this.#pipeline = new Pipeline({
      ...settings,
      dispatcher: this.#registry,
      audit: this.#audit,
      // Tool metadata is the downstream's text too: every view of the catalog is its redacted form.
      catalog: () => this.#catalogView.of(this.#registry.catalog, this.#pipeline.settings.redactor),
      resilience: this.#parts.resilience,
      observer: metrics,
    });
    this.#codemode = new CodeModeService({
      listTools: (clientId) => this.listTools(clientId),
      // Any change of the downstream catalog or of the policy makes every client's server stale.
      versions: () => [this.#registry.catalog, this.#pipeline.settings.policy],
      callTool: (clientId, name, args, opts) => this.callTool(clientId, name, args, opts),
      redact: (value) => this.#pipeline.settings.redactor.redactValue(value).value,
      log: options.log ?? ((line: string) => console.error(line)),
      // Code mode's own records (execute, search_api, describe_api) and the tools its programs name but
      // may not call go to the same audit log, with the same fail-closed rule.
      audit: (record) => this.#pipeline.audit(record),
      refuse: (clientId, name, executionId) =>
        this.#pipeline.refuse(Object.freeze({ id: clientId }), name, { executionId }),
      allTools: () => this.#registry.catalog.tools,
      downstreamNames: () => this.#config.downstreams.map((d) => d.name),
    }, { limits: config.codemode, sandbox: options.codeModeSandbox });
    metrics.watchCodeMode(() => this.#codemode.health());
    metrics.watchLimits(() => this.#limits?.health);
    // One surface for every way in (the HTTP edge, --stdio): a client is served its mode either way.
    this.#surface = Object.freeze({
      localTools: (client: Identity) => {
        const mode = this.modeOf(client.id);
        if (mode === "passthrough") return undefined;
        return { tools: this.#localTools(client.id), catalog: mode === "both" };
      },
      callLocalTool: (client: Identity, name: string, args: unknown, signal: AbortSignal) =>
        isCodeModeTool(name)
          ? answerCodeModeTool(this.#codemode, client.id, name, args, signal)
          : Promise.reject(new GatewayError("unknown_tool")),
      listTools: (client: Identity) => this.listTools(client.id),
      callTool: (client: Identity, name: string, args: JsonValue | undefined, opts: CallOptions) =>
        this.callTool(client.id, name, args, opts),
    });
    this.#edge = new HttpEdge({
      surface: this.#surface,
      settings: edgeSettings(config),
      audit: (record) => this.#audit.submit(record),
      metrics: config.metricsListen === undefined ? metrics : undefined,
      console: this.#console.http,
      onAuthFailure: () => metrics.authFailure(),
      onRateLimited: () => metrics.rateLimited(),
      onNotificationDropped: () => metrics.notificationDropped(),
      health: () => this.#codemode.health()?.status ?? "ok",
      limitsHealth: () => this.#limits?.health ?? "ok",
      maxBodyBytes: options.maxBodyBytes,
      bodyTimeoutMs: options.bodyTimeoutMs,
    });
  }

  /**
   * Builds a gateway from a validated configuration and starts every downstream (concurrently; one
   * failing to start or list leaves it down and retried with back-off, and the others serve). Does not
   * listen: call {@link Gateway.serve}, or use {@link Gateway.handler} / {@link Gateway.callTool}.
   */
  static async create(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
    const log = options.log ?? ((line: string) => console.error(line));
    const authorizer = await loadCallAuthorizer(config);
    // Operator lines are redacted too (a downstream may print its own secret); the redactor in force
    // is the pipeline's, known once the gateway exists.
    let redactor: () => { redactText(text: string): { value: string } } | undefined = () => undefined;
    const redact = (line: string) => redactor()?.redactText(line).value ?? line;
    // The parts and the registry refer to each other: the breaker probes a downstream (called only
    // once calls flow, after both exist), a downstream reports to the metrics.
    const parts: GatewayParts = await buildParts(config, {
      probe: (downstream, signal) => registry.probe(downstream, signal),
      log,
      auditToStderr: options.auditToStderr ?? false,
      onBreakerChange: (kind, key, state) => {
        if (kind === "downstream") gateway.#console.live.breakerState(key, state);
      },
    });
    const metrics = parts.metrics;
    const registry: DownstreamRegistry = new DownstreamRegistry({
      hostEnv: options.env ?? ((n) => Deno.env.get(n)),
      startTimeoutMs: options.startTimeoutMs,
      backoffBaseMs: options.backoffBaseMs,
      events: {
        stateChanged: (name, state) => {
          metrics.setDownstreamUp(name, state === "up");
          gateway.#console.live.downstreamState(name, state);
        },
        poolInUse: (name, n) => metrics.setPoolInUse(name, n),
        poolExhausted: (name) => metrics.poolExhausted(name),
        log: (name, message, cause) =>
          log(redact(`gateway: downstream ${name}: ${message}${describe(cause)}`)),
      },
      onStderr: options.logDownstreamStderr ? stderrLines(log, redact) : undefined,
      // The result cap is enforced while an answer is read (the one in force, after any reload).
      maxResultBytes: () => gateway.#pipeline.settings.maxResultBytes,
    });
    const limits = config.limits === undefined
      ? undefined
      : await Limits.open(config.limits, { events: limitsEvents(metrics, log) });
    const gateway = new Gateway(config, options, registry, parts, authorizer, limits);
    redactor = () => gateway.#pipeline.settings.redactor;
    try {
      await registry.apply(config.downstreams);
    } catch (err) {
      await gateway.close();
      throw err;
    }
    return gateway;
  }

  /** The configuration in force. */
  get config(): GatewayConfig {
    return this.#config;
  }

  /** Every configured downstream's state, in configuration order (diagnostics and tests). */
  get downstreams(): DownstreamStatus[] {
    return this.#registry.downstreams.map((d) => ({
      name: d.name,
      state: d.state,
      tools: d.tools.length,
      pids: d.pids,
    }));
  }

  /** The `fetch`-style HTTP handler (the same one {@link Gateway.serve} listens with). */
  get handler(): (request: Request, info?: ConnectionInfo) => Promise<Response> {
    return this.#edge.handle;
  }

  /** How `clientId` is served: its own `mode`, else the top-level one. */
  modeOf(clientId: string): ServeMode {
    return this.#config.clients.find((c) => c.id === clientId)?.mode ?? this.#config.mode;
  }

  /**
   * The three code-mode tool definitions `clientId` is listed: the limits in force, and examples drawn
   * from the tools it may call (rebuilt when its catalog, the policy, the redaction or the limits change).
   */
  #localTools(clientId: string): ReturnType<typeof codeModeTools> {
    const settings = this.#pipeline.settings;
    const key = [this.#registry.catalog, settings.policy, settings.redactor, this.#codemode.limits];
    const cached = this.#codeModeTools.get(clientId);
    if (cached !== undefined && cached.key.every((v, i) => v === key[i])) return cached.tools;
    const tools = codeModeTools(this.#codemode.limits, this.listTools(clientId).tools);
    // Entries of clients gone from the configuration must not pile up: keep only configured ones.
    if (this.#codeModeTools.size > this.#config.clients.length) this.#codeModeTools.clear();
    this.#codeModeTools.set(clientId, { key, tools });
    return tools;
  }

  /**
   * Runs a code-mode program as `clientId` over the tools it may call (whatever its `mode`; the HTTP
   * edge offers `execute` only to clients in `codemode` or `both`). Each native call runs the whole
   * pipeline and is audited with the returned execution id. Resolves with what the program printed too
   * (`output`, redacted like the value); rejects with a `CodeModeError` (its `output` redacted as well).
   */
  execute(
    clientId: string,
    source: string,
    signal?: AbortSignal,
  ): Promise<{ readonly value: unknown; readonly executionId: string; readonly output?: string }> {
    if (!this.#accepting) {
      return Promise.reject(new GatewayError("unavailable", "the gateway is shutting down"));
    }
    return this.#codemode.execute(clientId, source, signal);
  }

  /** The tools `clientId` may call, as its `tools/list` shows them. */
  listTools(clientId: string): Catalog {
    return this.#pipeline.listTools(Object.freeze({ id: clientId }));
  }

  /**
   * Runs one tool call as `clientId` through the full pipeline (audit → redact(out) → policy →
   * redact(in) → resilience → dispatch) — the entry the HTTP edge, `--stdio` and a CodeMode native call
   * share. Resolves with the redacted result (possibly an error result); rejects with a `GatewayError`
   * whose `publicText` is safe to show. Every call leaves exactly one audit record.
   */
  async callTool(
    clientId: string,
    toolName: string,
    args: JsonValue | undefined,
    signalOrOptions?: AbortSignal | CallOptions,
  ): Promise<Result> {
    const options: CallOptions = signalOrOptions instanceof AbortSignal
      ? { signal: signalOrOptions }
      : signalOrOptions ?? {};
    if (!this.#accepting) throw new GatewayError("unavailable", "the gateway is shutting down");
    const own = new AbortController();
    const outer = options.signal;
    const onAbort = () => own.abort(outer?.reason);
    if (outer?.aborted) own.abort(outer.reason);
    else outer?.addEventListener("abort", onAbort, { once: true });
    this.#inFlight.add(own);
    try {
      const client: Identity = Object.freeze({ id: clientId });
      return await this.#pipeline.call(client, toolName, args, { ...options, signal: own.signal });
    } finally {
      outer?.removeEventListener("abort", onAbort);
      this.#inFlight.delete(own);
      if (this.#inFlight.size === 0) { for (const wake of this.#idle.splice(0)) wake(); }
    }
  }

  /**
   * Serves `clientId` over this process's stdin and stdout (`--stdio`), exactly as the HTTP edge serves
   * it: its own mode (code mode, its catalog, or both), the same pipeline. No key is involved: whoever
   * starts the process names the client. Resolves once connected; `onEnd` is called once when stdin ends
   * or the transport closes. Nothing else may write to stdout meanwhile.
   */
  serveStdio(
    clientId: string,
    onEnd?: (why: "stdin closed" | "stdio closed") => void,
  ): Promise<{ close(): Promise<void> }> {
    return serveStdioClient(this.#surface, Object.freeze({ id: clientId }), { onEnd });
  }

  /** Listens on `listen` (and `metrics_listen`); resolves once bound. */
  serve(): Promise<ServeAddresses> {
    const c = this.#config;
    const main = Deno.serve(
      { hostname: c.listen.host, port: c.listen.port, onListen: () => {} },
      (request, info) => this.#edge.handle(request, info),
    );
    this.#servers.push(main);
    const url = `http://${hostPort(c.listen.host, main.addr.port)}/mcp`;
    if (c.metricsListen === undefined) return Promise.resolve({ url });
    const source = this.#parts.metrics;
    const metricsServer = Deno.serve(
      { hostname: c.metricsListen.host, port: c.metricsListen.port, onListen: () => {} },
      async (request, info) => {
        if (isConsolePath(new URL(request.url).pathname)) {
          return await this.#edge.handleConsole(request, info);
        }
        if (new URL(request.url).pathname !== "/metrics" || request.method !== "GET") {
          return new Response("not found\n", { status: 404 });
        }
        return new Response(await source.text(), { headers: { "content-type": source.contentType } });
      },
    );
    this.#servers.push(metricsServer);
    return Promise.resolve({
      url,
      metricsUrl: `http://${hostPort(c.metricsListen.host, metricsServer.addr.port)}/metrics`,
    });
  }

  /**
   * Applies a new validated configuration: clients, keys, origins, policy and redaction at once for
   * calls that start from now on; a downstream whose entry changed is restarted, a removed one stopped,
   * a new one started. Listen addresses and the audit sink need a restart and are reported in
   * `ignored`.
   */
  async reload(next: GatewayConfig): Promise<ReloadOutcome> {
    try {
      const outcome = await this.#reload(next);
      this.#console.live.reloaded({
        at: Date.now(),
        ok: true,
        diff: { ...outcome.downstreams, ignored: outcome.ignored },
      });
      return outcome;
    } catch (err) {
      this.noteReloadFailure(`the new configuration was not applied${describe(err)}`);
      throw err;
    }
  }

  /**
   * Shows a reload that failed before it reached {@link Gateway.reload} (a file that does not load) in
   * the operator console. `message` is operator text (redacted here all the same).
   */
  noteReloadFailure(message: string): void {
    const error = this.#pipeline.settings.redactor.redactText(message).value;
    this.#console.live.reloaded({ at: Date.now(), ok: false, error });
  }

  async #reload(next: GatewayConfig): Promise<ReloadOutcome> {
    const prev = this.#config;
    // Loaded first: a policy that does not load rejects the reload before anything changed.
    const authorizer = await loadCallAuthorizer(next);
    const ignored: string[] = [];
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(prev.listen, next.listen)) ignored.push("listen");
    if (!same(prev.metricsListen, next.metricsListen)) ignored.push("metrics_listen");
    if (!same(prev.audit, next.audit)) ignored.push("audit");
    const before = new Map(prev.downstreams.map((d) => [d.name, d]));
    const started: string[] = [];
    const restarted: string[] = [];
    for (const d of next.downstreams) {
      const old = before.get(d.name);
      if (old === undefined) started.push(d.name);
      else if (!sameDownstream(old, d)) restarted.push(d.name);
      before.delete(d.name);
    }
    // Policy and redaction switch first, so no call starts against a removed downstream's rules.
    this.#pipeline.reconfigure(pipelineSettings(next, authorizer, await this.#nextLimits(next)));
    this.#edge.reconfigure(edgeSettings(next, this.#edge.settings));
    if (JSON.stringify(prev.codemode) !== JSON.stringify(next.codemode)) {
      this.#codemode.reconfigure({ limits: next.codemode });
    }
    this.#parts.reconfigure(next, [...restarted, ...before.keys()]);
    this.#config = { ...next, listen: prev.listen, metricsListen: prev.metricsListen, audit: prev.audit };
    await this.#registry.apply(next.downstreams);
    return { downstreams: { started, restarted, stopped: [...before.keys()] }, ignored };
  }

  /**
   * Graceful shutdown: stops accepting requests and calls, waits for in-flight calls (up to
   * `drainTimeoutMs`, then cancels them), stops every downstream (their process groups end), and
   * drains the audit writer.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /**
   * The limits for `next`: the running ones reconfigured (a kept store keeps its counters), new ones
   * opened, or none (the old ones close once the pipeline no longer uses them).
   */
  async #nextLimits(next: GatewayConfig): Promise<Limits | undefined> {
    const current = this.#limits;
    if (next.limits === undefined) {
      this.#limits = undefined;
      // Calls already admitted release into a closed store, which ignores them.
      if (current !== undefined) queueMicrotask(() => void current.close().catch(() => {}));
      return undefined;
    }
    if (current !== undefined) {
      await current.reconfigure(next.limits);
      return current;
    }
    const log = this.#options.log ?? ((line: string) => console.error(line));
    this.#limits = await Limits.open(next.limits, {
      events: limitsEvents(this.#parts.metrics, log),
    });
    return this.#limits;
  }

  /** Resolves `true` once no call is in flight, or `false` after `ms`. */
  async #drained(ms: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<boolean>((resolve) => this.#idle.push(() => resolve(true)));
    const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms));
    try {
      return await Promise.race([idle, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #close(): Promise<void> {
    this.#accepting = false;
    // Console pages hold their event streams open: end them, or the servers would wait on them.
    this.#console.live.close();
    const servers = this.#servers.splice(0);
    const shutdowns = Promise.allSettled(servers.map((s) => s.shutdown()));
    if (!(await this.#drained(this.#options.drainTimeoutMs ?? 10_000))) {
      for (const ac of this.#inFlight) ac.abort(new DOMException("gateway shutting down", "AbortError"));
      // Cancelled calls still write their audit records: give them a moment before the writer closes.
      await this.#drained(1_000);
    }
    await shutdowns;
    // Programs still running lose their sandboxes; their native calls are refused from here on.
    await this.#codemode.close();
    try {
      // Resolves once every child process group of this gateway has ended.
      await this.#registry.close();
    } finally {
      // Concurrency slots still held go back to a shared store before this replica leaves.
      await this.#limits?.close().catch(() => {});
      await this.#parts.close();
    }
  }
}
