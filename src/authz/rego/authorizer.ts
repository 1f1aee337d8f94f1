/**
 * The Rego authorizer: loads a policy compiled by `opa build -t wasm` (bare `policy.wasm` or a bundle),
 * checks it, and evaluates one ground decision per native call with `@open-policy-agent/opa-wasm`.
 *
 * @module
 */
import { type LoadedPolicy, loadPolicy } from "@open-policy-agent/opa-wasm";
import {
  type AuthorizationContext,
  type AuthorizationInput,
  type Authorizer,
  DeniedError,
} from "../../../authz.ts";
import { checkRequiredBuiltins } from "./builtins.ts";
import { readBundle } from "./bundle.ts";
import { RegoLoadError, RegoPolicyError, thrownText } from "./errors.ts";
import { type DecisionRef, entrypointName, parseDecision } from "./reference.ts";

/** Options of {@link loadRegoAuthorizer}. */
export interface RegoOptions {
  /** The decision as a ground data reference, e.g. `data.codemode.authz.allow`. It must be an entrypoint. */
  readonly decision: string;
  /**
   * The base data document (`data`) for a bare `policy.wasm`: a JSON object. A bundle brings its own
   * `data.json` files, so passing `data` with a bundle is an error.
   */
  readonly data?: Record<string, unknown>;
  /**
   * Maximum wasm memory of the policy instance in bytes (default 64 MiB; at least 320 KiB). An evaluation
   * that needs more fails as a policy error. Zero means the default; negative is invalid.
   */
  readonly maxMemoryBytes?: number;
  /** Maximum decompressed size of a bundle in bytes (default 64 MiB). Zero means the default. */
  readonly maxBundleBytes?: number;
  /** Aborts loading; loading then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Default of {@link RegoOptions.maxMemoryBytes}. */
export const DEFAULT_MAX_MEMORY_BYTES = 64 * 1024 * 1024;
/** Default of {@link RegoOptions.maxBundleBytes}. */
export const DEFAULT_MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

const PAGE = 65_536;
/** The SDK's initial memory size (pages); also the smallest maximum we accept. */
const INITIAL_PAGES = 5;
const MAX_PAGES = 65_536;

const REQUIRED_EXPORTS = [
  "opa_eval",
  "opa_malloc",
  "opa_json_parse",
  "opa_json_dump",
  "opa_heap_ptr_get",
  "opa_heap_ptr_set",
  "builtins",
  "entrypoints",
  "opa_wasm_abi_version",
  "opa_wasm_abi_minor_version",
];
const KNOWN_IMPORTS = new Set([
  "memory",
  "opa_abort",
  "opa_println",
  "opa_builtin0",
  "opa_builtin1",
  "opa_builtin2",
  "opa_builtin3",
  "opa_builtin4",
]);

function limitOption(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === 0) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RegoLoadError("options", `rego: ${name} must be a non-negative integer (0 means the default)`);
  }
  if (value < min || value > max) {
    throw new RegoLoadError("options", `rego: ${name} must be between ${min} and ${max}`);
  }
  return value;
}

function toBytes(source: unknown): Uint8Array {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  throw new RegoLoadError(
    "options",
    "rego: source must be the bytes of a policy.wasm or of a bundle (.tar.gz)",
  );
}

function isWasm(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x00 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d;
}

function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** Serializes the base data once; instances re-read it from these bytes after a reset. */
function encodeData(data: unknown): ArrayBuffer {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new RegoLoadError("data", "rego: data must be a JSON object");
  }
  let json: string;
  try {
    json = JSON.stringify(data);
  } catch (err) {
    throw new RegoLoadError("data", "rego: data is not serializable as JSON", { cause: err });
  }
  return new TextEncoder().encode(json).buffer as ArrayBuffer;
}

async function compileModule(wasm: Uint8Array): Promise<WebAssembly.Module> {
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(wasm as Uint8Array<ArrayBuffer>);
  } catch (err) {
    throw new RegoLoadError("wasm", `rego: invalid wasm module: ${thrownText(err)}`, { cause: err });
  }
  const exports = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  const missing = REQUIRED_EXPORTS.filter((name) => !exports.has(name));
  const foreign = WebAssembly.Module.imports(module)
    .filter((i) => i.module !== "env" || !KNOWN_IMPORTS.has(i.name))
    .map((i) => `${i.module}.${i.name}`);
  if (missing.length > 0 || foreign.length > 0) {
    const why = missing.length > 0
      ? `missing exports ${missing.join(", ")}`
      : `unknown imports ${foreign.join(", ")}`;
    throw new RegoLoadError("wasm", `rego: the wasm module is not an OPA policy (${why})`);
  }
  return module;
}

/** Reads the module's `builtins` export: the host builtins it calls, by name. */
function requiredBuiltins(policy: LoadedPolicy): string[] {
  const instance = (policy.wasmInstance as { instance?: WebAssembly.Instance }).instance ??
    (policy.wasmInstance as WebAssembly.Instance);
  const exports = instance.exports as Record<string, (...args: number[]) => number>;
  const addr = exports.opa_json_dump(exports.builtins());
  const mem = new Uint8Array(policy.mem.buffer);
  let end = addr;
  while (end < mem.length && mem[end] !== 0) end++;
  const parsed = JSON.parse(new TextDecoder().decode(mem.subarray(addr, end)));
  return Object.keys(parsed ?? {});
}

/**
 * The entrypoints and required host builtins of a compiled policy, without checking them (used by the
 * capabilities generator to learn which builtins OPA compiles natively).
 */
export async function inspectPolicyModule(
  wasm: Uint8Array,
): Promise<{ entrypoints: Record<string, number>; requiredBuiltins: string[] }> {
  const policy = await instantiate(await compileModule(wasm), DEFAULT_MAX_MEMORY_BYTES);
  return { entrypoints: { ...policy.entrypoints }, requiredBuiltins: requiredBuiltins(policy) };
}

/** OPA's allocator aborts with `opa_malloc: failed`; growing memory for the input throws a RangeError. */
function isMemoryExhaustion(thrown: unknown): boolean {
  return /opa_malloc|out of memory|memory\.grow|maximum memory size/i.test(thrownText(thrown));
}

/**
 * An {@link Authorizer} backed by a compiled Rego policy. Create it with {@link loadRegoAuthorizer}. Safe
 * for concurrent calls: the SDK evaluates synchronously, so evaluations never interleave, and an instance
 * whose evaluation failed is replaced before it is used again.
 */
export class RegoAuthorizer implements Authorizer {
  /** The decision reference, trimmed. */
  readonly decision: string;
  /** The wasm entrypoint evaluated, e.g. `codemode/authz/allow`. */
  readonly entrypoint: string;
  /** Every entrypoint the module exports. */
  readonly entrypoints: readonly string[];
  /** The host builtins the module calls (all on the deterministic allow-list). */
  readonly requiredBuiltins: readonly string[];
  /** The maximum wasm memory per instance, in bytes. */
  readonly maxMemoryBytes: number;
  readonly #module: WebAssembly.Module;
  readonly #data: ArrayBuffer;
  readonly #entrypointId: number;
  #current: LoadedPolicy | undefined;
  #replacing: Promise<LoadedPolicy> | undefined;

  private constructor(parts: {
    ref: DecisionRef;
    entrypoint: string;
    entrypoints: Record<string, number>;
    builtins: string[];
    maxMemoryBytes: number;
    module: WebAssembly.Module;
    data: ArrayBuffer;
    policy: LoadedPolicy;
  }) {
    this.decision = parts.ref.text;
    this.entrypoint = parts.entrypoint;
    this.entrypoints = Object.freeze(Object.keys(parts.entrypoints).sort());
    this.requiredBuiltins = Object.freeze([...parts.builtins].sort());
    this.maxMemoryBytes = parts.maxMemoryBytes;
    this.#module = parts.module;
    this.#data = parts.data;
    this.#entrypointId = parts.entrypoints[parts.entrypoint];
    this.#current = parts.policy;
  }

  /** @internal Loads and checks a policy; use {@link loadRegoAuthorizer}. */
  static async load(source: Uint8Array | ArrayBuffer, options: RegoOptions): Promise<RegoAuthorizer> {
    if (options === null || typeof options !== "object") {
      throw new RegoLoadError("options", "rego: options with a decision are required");
    }
    const signal = options.signal;
    signal?.throwIfAborted();
    try {
      return await RegoAuthorizer.#load(source, options);
    } catch (err) {
      // Cancellation wins over a preparation error that raced with it.
      signal?.throwIfAborted();
      throw err;
    }
  }

  static async #load(source: Uint8Array | ArrayBuffer, options: RegoOptions): Promise<RegoAuthorizer> {
    const ref = parseDecision(options.decision);
    const maxMemoryBytes = limitOption(
      "maxMemoryBytes",
      options.maxMemoryBytes,
      DEFAULT_MAX_MEMORY_BYTES,
      INITIAL_PAGES * PAGE,
      MAX_PAGES * PAGE,
    );
    const maxBundleBytes = limitOption(
      "maxBundleBytes",
      options.maxBundleBytes,
      DEFAULT_MAX_BUNDLE_BYTES,
      1,
      2 ** 31,
    );
    const bytes = toBytes(source);
    let wasm: Uint8Array;
    let data: unknown;
    if (isGzip(bytes)) {
      if (options.data !== undefined) {
        throw new RegoLoadError(
          "data",
          "rego: a bundle brings its own data.json; do not pass options.data with it",
        );
      }
      const bundle = await readBundle(bytes, maxBundleBytes);
      wasm = bundle.wasm;
      data = bundle.data;
    } else if (isWasm(bytes)) {
      wasm = bytes;
      data = options.data ?? {};
    } else {
      throw new RegoLoadError(
        "wasm",
        "rego: source is neither a wasm module nor a gzipped bundle (build it with opa build -t wasm)",
      );
    }
    const dataBytes = encodeData(data);
    const module = await compileModule(wasm);
    options.signal?.throwIfAborted();
    const policy = await instantiate(module, maxMemoryBytes);
    const builtins = requiredBuiltins(policy);
    checkRequiredBuiltins(builtins);
    const entrypoints = policy.entrypoints as Record<string, number>;
    const entrypoint = entrypointName(ref);
    if (entrypoint === undefined || !Object.hasOwn(entrypoints, entrypoint)) {
      const known = Object.keys(entrypoints).sort().join(", ") || "none";
      throw new RegoLoadError(
        "entrypoint",
        `rego: decision ${ref.text} is not an entrypoint of the module (entrypoints: ${known}); ` +
          `compile it with opa build -t wasm -e ${entrypoint ?? "<path>"}`,
      );
    }
    setData(policy, dataBytes);
    return new RegoAuthorizer({
      ref,
      entrypoint,
      entrypoints,
      builtins,
      maxMemoryBytes,
      module,
      data: dataBytes,
      policy,
    });
  }

  /**
   * Evaluates the decision for one native call. Resolves when it is `true`; rejects with a
   * {@link DeniedError} when it is `false`, with a {@link RegoPolicyError} when it is undefined, not a
   * boolean or fails to evaluate, and with the signal's reason when `ctx.signal` is aborted.
   */
  async authorize(input: AuthorizationInput, ctx?: AuthorizationContext): Promise<void> {
    const signal = ctx?.signal;
    signal?.throwIfAborted();
    if (
      input === null || typeof input !== "object" || input.subject === null ||
      typeof input.subject !== "object"
    ) {
      throw new RegoPolicyError("evaluation", "rego: authorization input is missing");
    }
    // Exactly the seed's input document. It is always an object: the SDK would pass false, 0, "" or null
    // to the policy as *no* input, which this shape can never hit.
    const document = {
      subject: { id: input.subject.id },
      capability: { id: input.capabilityId, name: input.capabilityName },
      arguments: input.arguments ?? {},
    };
    const policy = this.#current ?? await this.#replacement();
    signal?.throwIfAborted();
    let resultSet: unknown;
    try {
      resultSet = policy.evaluate(document, this.#entrypointId);
    } catch (thrown) {
      // A failed evaluation may leave the instance's heap or memory in any state: never reuse it.
      if (this.#current === policy) this.#current = undefined;
      signal?.throwIfAborted();
      if (isMemoryExhaustion(thrown)) {
        throw new RegoPolicyError(
          "memory",
          `rego: evaluation exceeded the policy memory limit of ${this.maxMemoryBytes} bytes`,
          { cause: thrown },
        );
      }
      throw new RegoPolicyError("evaluation", `rego: evaluation failed: ${thrownText(thrown)}`, {
        cause: thrown,
      });
    }
    signal?.throwIfAborted();
    this.#decide(resultSet);
  }

  #decide(resultSet: unknown): void {
    if (!Array.isArray(resultSet)) {
      throw new RegoPolicyError("evaluation", "rego: evaluation returned a malformed result set");
    }
    if (resultSet.length === 0) throw new RegoPolicyError("undefined", "rego: decision is undefined");
    if (resultSet.length > 1) {
      throw new RegoPolicyError("evaluation", `rego: decision produced ${resultSet.length} results`);
    }
    const entry = resultSet[0] as { result?: unknown } | null;
    const value = entry !== null && typeof entry === "object" ? entry.result : undefined;
    if (value === undefined) throw new RegoPolicyError("undefined", "rego: decision is undefined");
    if (value === true) return;
    if (value === false) throw new DeniedError(`rego: ${this.decision} is false`);
    throw new RegoPolicyError("not_boolean", "rego: decision must be boolean");
  }

  #replacement(): Promise<LoadedPolicy> {
    this.#replacing ??= (async () => {
      try {
        const policy = await instantiate(this.#module, this.maxMemoryBytes);
        setData(policy, this.#data);
        this.#current = policy;
        return policy;
      } catch (err) {
        if (err instanceof RegoLoadError) {
          throw new RegoPolicyError(
            "evaluation",
            err.message.replace(/^rego: /, "rego: cannot reset policy: "),
            {
              cause: err,
            },
          );
        }
        throw err;
      } finally {
        this.#replacing = undefined;
      }
    })();
    return this.#replacing;
  }
}

async function instantiate(module: WebAssembly.Module, maxMemoryBytes: number): Promise<LoadedPolicy> {
  try {
    return await loadPolicy(module, { initial: INITIAL_PAGES, maximum: Math.floor(maxMemoryBytes / PAGE) });
  } catch (err) {
    throw new RegoLoadError("wasm", `rego: cannot instantiate the policy: ${thrownText(err)}`, {
      cause: err,
    });
  }
}

function setData(policy: LoadedPolicy, data: ArrayBuffer): void {
  try {
    policy.setData(data);
  } catch (err) {
    const why = isMemoryExhaustion(err) ? "it does not fit in maxMemoryBytes" : thrownText(err);
    throw new RegoLoadError("data", `rego: cannot load the data document: ${why}`, { cause: err });
  }
}

/**
 * Loads a policy compiled by `opa build -t wasm` — the bytes of a `policy.wasm`, or of the bundle
 * (`.tar.gz` with `/policy.wasm` and `data.json` files) that `opa build` writes — and returns an
 * authorizer for `options.decision`.
 *
 * Rejects with a {@link RegoLoadError} for a blank, non-ground or non-`data` decision, a decision that is
 * not an entrypoint of the module, invalid wasm or bundle, invalid data, and a module that requires a
 * nondeterministic builtin or one the SDK does not implement deterministically.
 */
export function loadRegoAuthorizer(
  source: Uint8Array | ArrayBuffer,
  options: RegoOptions,
): Promise<RegoAuthorizer> {
  return RegoAuthorizer.load(source, options);
}
