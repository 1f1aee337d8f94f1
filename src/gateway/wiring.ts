/**
 * What the gateway's composition root (`gateway.ts`) derives from one validated configuration and wires
 * into its layers: the pipeline's and the HTTP edge's settings (carrying the rate limiter and the OAuth
 * keys over a reload), the Rego call authorizer, the limits' events, and the operator log's relays of
 * downstream stderr and failure causes.
 *
 * @module
 */
import { type GatewayConfig, secretValues, subjectMap } from "./config/mod.ts";
import { GatewayError } from "./domain/mod.ts";
import { ClientKeys, type EdgeSettings, FailureLimiter, HostCheck, OriginCheck } from "./http/mod.ts";
import type { CallAuthorizerPort, PipelineSettings } from "./pipeline/mod.ts";
import { isDenied } from "../../authz.ts";
import { loadRegoAuthorizer } from "../../authz/rego.ts";
import { Policy } from "./policy/mod.ts";
import { Redactor } from "./redact/mod.ts";
import type { GatewayParts } from "./parts.ts";
import type { Limits, LimitsEvents } from "../limits/mod.ts";
import { oauthResource } from "../auth/mod.ts";

/** The pipeline's settings for `config`: its policy, redactor, result cap, authorizer and limits. */
export function pipelineSettings(
  config: GatewayConfig,
  authorizer: CallAuthorizerPort | undefined,
  limits: Limits | undefined,
): PipelineSettings {
  return {
    policy: new Policy(config.policy.clients),
    redactor: new Redactor({ secrets: secretValues(config), patterns: config.redaction.patterns }),
    maxResultBytes: config.redaction.maxResultBytes,
    // Always present, so a reload that drops the authorizer replaces it with none.
    authorizer,
    limits,
  };
}

/**
 * Loads the Rego authorizer of `config`, if any: its input document is the CodeMode one, with the
 * client as subject and the namespaced tool name as capability id and name, for passthrough and native
 * calls alike. Throws (a missing file, a policy that does not load) so a bad file never half-applies.
 */
export async function loadCallAuthorizer(config: GatewayConfig): Promise<CallAuthorizerPort | undefined> {
  const rego = config.authz?.rego;
  if (rego === undefined) return undefined;
  const authorizer = await loadRegoAuthorizer(await Deno.readFile(rego.policy), { decision: rego.decision });
  return {
    decide: async (call, signal) => {
      try {
        await authorizer.authorize(
          { subject: call.client, capabilityId: call.name, capabilityName: call.name, arguments: call.args },
          { signal },
        );
      } catch (err) {
        if (isDenied(err)) throw new GatewayError("denied", "rego: denied", { cause: err });
        throw err;
      }
    },
  };
}

/** The edge's settings; the rate limiter (and what it counted) carries over while its settings stay. */
export function edgeSettings(config: GatewayConfig, previous?: EdgeSettings): EdgeSettings {
  const limit = config.authRateLimit;
  const kept = previous?.authLimit;
  const same = kept !== undefined && kept.settings.burst === limit.burst &&
    kept.settings.refillPerMinute === limit.refillPerMinute;
  return {
    keys: new ClientKeys(config.clients.map((c) => ({ id: c.id, apiKey: c.apiKey }))),
    operators: new ClientKeys(config.operators.map((o) => ({ id: o.id, apiKey: o.apiKey }))),
    hosts: new HostCheck(config.listen.loopback, config.allowedHosts),
    origins: new OriginCheck(config.allowedOrigins),
    authLimit: same ? kept : new FailureLimiter(limit),
    ...(config.oauth === undefined ? {} : {
      oauth: oauthResource(config.oauth, subjectMap(config.clients), {
        // The cached keys survive a reload that keeps the issuer and its JWKS location.
        jwks: previous?.oauth?.authenticator.settings.issuer === config.oauth.issuer &&
            previous.oauth.authenticator.settings.jwksUri === config.oauth.jwksUri
          ? previous.oauth.authenticator.jwks
          : undefined,
      }),
    }),
  };
}

/** A cause for the operator log: its first line, bounded (never shown to a client). */
export function describe(cause: unknown): string {
  const parts: string[] = [];
  // Follow the cause chain: the classified error says what failed, its causes say why.
  for (let c = cause, depth = 0; c !== undefined && c !== null && depth < 4; depth++) {
    parts.push(c instanceof Error ? c.message : String(c));
    c = c instanceof Error ? c.cause : undefined;
  }
  return parts.length === 0 ? "" : `: ${parts.join(": ").split("\n")[0].slice(0, 300)}`;
}

/** Splits children's stderr into lines for the operator log. */
export function stderrLines(
  log: (line: string) => void,
  redact: (line: string) => string,
): (downstream: string, chunk: Uint8Array) => void {
  const pending = new Map<string, string>();
  const decoder = new TextDecoder();
  return (downstream, chunk) => {
    const lines = ((pending.get(downstream) ?? "") + decoder.decode(chunk, { stream: true })).split("\n");
    // Keep a partial last line for the next chunk, bounded so a child without newlines cannot grow it.
    pending.set(downstream, lines.pop()!.slice(-4096));
    for (const line of lines) {
      if (line.trim() !== "") log(redact(`gateway: downstream ${downstream} stderr: ${line}`));
    }
  };
}

/** The limits' events: metrics per rule, and one operator line per store health change (not per call). */
export function limitsEvents(metrics: GatewayParts["metrics"], log: (line: string) => void): LimitsEvents {
  return {
    refused: (refusal) => metrics.limitRefused(refusal.rule, refusal.kind),
    storeError: (action) => metrics.limitStoreError(action),
    health: (status) =>
      log(
        status === "degraded"
          ? "gateway: limits store failing; calls follow on_store_error until it answers"
          : "gateway: limits store answering again",
      ),
  };
}

/** `host:port`, an IPv6 host in brackets. */
export function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
