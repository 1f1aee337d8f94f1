/**
 * The MCP adapter's ports: the {@link Service} it exposes and the {@link SubjectResolver} that names the
 * trusted caller of every tool call, with the three stock resolvers.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/auth/types"
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { currentSubject, type Subject } from "../../authz.ts";
import type { Description } from "../core/mod.ts";
import { CodeModeError } from "../errors.ts";
import type { SearchResponse } from "../search/mod.ts";
import type { ExampleCapability } from "./examples.ts";

export type { AuthInfo };

/** Options of one {@link Service.execute} call. */
export interface ServiceExecuteOptions {
  /** Aborted when the MCP client cancels the request or the connection goes away. */
  readonly signal?: AbortSignal;
  /**
   * Told what the program printed, before `execute` settles (a built `Server` calls it; see its
   * `ExecuteOptions.onOutput`). The adapter returns it with the result and with the error.
   */
  readonly onOutput?: (output: string) => void;
}

/**
 * What the adapter exposes: a root `Server` from `Builder.build()` implements it, and so can any other
 * catalog (the gateway's, for instance). The adapter relies on the service for catalog filtering,
 * discovery limits, authorization and execution limits; it only shapes requests and results.
 *
 * Every call runs inside `withSubject(subject, ...)`, so a service whose discovery depends on the caller
 * can read the resolved subject with `currentSubject()`.
 */
export interface Service {
  /** Finds capabilities for a task. */
  search(query: string): SearchResponse | Promise<SearchResponse>;
  /** Describes one capability by its exact dotted name. */
  describe(name: string): Description | Promise<Description>;
  /** Runs one program as `subject` and resolves to the converted return value of `main()`. */
  execute(subject: Subject, source: string, options?: ServiceExecuteOptions): Promise<unknown>;
  /**
   * The capabilities the tool descriptions draw their examples from (a built `Server` has it). Without
   * it, and without the adapter's `examples` option, the descriptions show a template.
   */
  capabilities?(): readonly ExampleCapability[] | Promise<readonly ExampleCapability[]>;
}

/**
 * What a resolver may look at. Deliberately narrow: tool arguments, Starlark source and MCP `_meta` are
 * client-controlled and must never name the caller, so they are not offered.
 */
export interface ResolveContext {
  /**
   * The credential information a trusted transport attached to the request (for example the HTTP
   * handler's validated API key, or an SDK auth middleware's token check). Absent on stdio.
   */
  readonly authInfo?: AuthInfo;
  /** Aborted when the request is cancelled. */
  readonly signal: AbortSignal;
}

/**
 * Names the trusted subject of one valid tool call. It runs before discovery or execution; a thrown
 * error, an absent subject or an empty `id` stops the call with `unauthenticated`. A resolver must not
 * return credential material.
 */
export interface SubjectResolver {
  /** Resolves the subject of the current call. */
  resolve(context: ResolveContext): Subject | undefined | Promise<Subject | undefined>;
}

function checkId(id: unknown, what: string): string {
  if (typeof id !== "string" || id === "") {
    throw new CodeModeError("invalid_registration", `${what} must have a non-empty string id`);
  }
  return id;
}

/**
 * A resolver that always names one fixed subject. Only for single-user transports where process
 * ownership is the authentication boundary, such as a local stdio server; never for multi-user hosts.
 *
 * @example
 * ```ts
 * import { staticSubject } from "@codemode/codemode/mcp";
 * const resolver = staticSubject({ id: "local-user" });
 * ```
 */
export function staticSubject(subject: Subject): SubjectResolver {
  const fixed: Subject = Object.freeze({ id: checkId(subject?.id, "staticSubject(subject)") });
  return { resolve: () => fixed };
}

/** Maps validated credential information to a subject. */
export type AuthInfoMapper = (authInfo: AuthInfo) => Subject | undefined;

/**
 * A resolver that reads the SDK's `authInfo`, which a trusted transport sets after validating the
 * caller's credentials (this package's HTTP handler sets `clientId` to the API key's subject). By
 * default the subject id is `authInfo.clientId`; pass `map` to derive it differently. No `authInfo`
 * means unauthenticated.
 *
 * @example
 * ```ts
 * import { authInfoSubject } from "@codemode/codemode/mcp";
 * const byClient = authInfoSubject();
 * const byTenant = authInfoSubject((info) => ({ id: `${info.extra?.tenant}:${info.clientId}` }));
 * ```
 */
export function authInfoSubject(map?: AuthInfoMapper): SubjectResolver {
  if (map !== undefined && typeof map !== "function") {
    throw new CodeModeError("invalid_registration", "authInfoSubject(map) expects a function");
  }
  const project: AuthInfoMapper = map ?? ((info) => ({ id: info.clientId }));
  return {
    resolve({ authInfo }) {
      if (authInfo === undefined) return undefined;
      return project(authInfo);
    },
  };
}

/**
 * A resolver that reads the subject installed with `withSubject` around the request (the host's
 * authentication middleware validates credentials and installs it; this resolver does not
 * authenticate).
 *
 * @example
 * ```ts
 * import { withSubject } from "@codemode/codemode/authz";
 * import { contextSubject } from "@codemode/codemode/mcp";
 * const resolver = contextSubject();
 * // In the HTTP layer, after checking the caller's credentials:
 * // withSubject({ id: "alice" }, () => transport.handleRequest(request));
 * ```
 */
export function contextSubject(): SubjectResolver {
  return { resolve: () => currentSubject() };
}

/** Whether `value` looks like a {@link Service} (for construction checks). */
export function isService(value: unknown): value is Service {
  if (value === null || typeof value !== "object") return false;
  const v = value as Partial<Service>;
  return typeof v.search === "function" && typeof v.describe === "function" &&
    typeof v.execute === "function";
}

/** Whether `value` looks like a {@link SubjectResolver}. */
export function isResolver(value: unknown): value is SubjectResolver {
  return value !== null && typeof value === "object" &&
    typeof (value as Partial<SubjectResolver>).resolve === "function";
}

/**
 * A service that becomes available later: calls wait for `pending` and then go to the service it
 * resolves to (a rejection fails each call with `internal`). It lets a host connect its transport —
 * and answer `initialize` and `tools/list` — while `Builder.build()` is still probing the executor.
 *
 * @example
 * ```ts ignore
 * const mcp = createMcpServer(deferredService(builder.build()), staticSubject({ id: "me" }), {
 *   limits: defaultLimits(),
 * });
 * ```
 */
export function deferredService(pending: Promise<Service>): Service {
  const ready = pending.then((service) => {
    if (!isService(service)) {
      throw new CodeModeError("internal", "deferred service resolved to a non-service");
    }
    return service;
  }, (err) => {
    throw new CodeModeError("internal", "deferred service failed to start", { cause: err });
  });
  // The owner of `pending` reports its failure; the calls below each see an `internal` error instead.
  ready.catch(() => {});
  return {
    search: async (query) => (await ready).search(query),
    describe: async (name) => (await ready).describe(name),
    execute: async (subject, source, options) => await (await ready).execute(subject, source, options),
    capabilities: async () => (await (await ready).capabilities?.()) ?? [],
  };
}
