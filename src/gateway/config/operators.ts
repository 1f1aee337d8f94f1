/**
 * The `operators:` section: who may read operator data (`/metrics` on the main listener). Operators
 * authenticate with API keys of their own, read from environment variables like client keys; an
 * operator key is never a client key and a client key is never an operator key, so a configuration
 * where the two coincide is refused.
 *
 * @module
 */
import type { ClientConfig, OperatorConfig } from "./types.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";

const OPERATOR_ID = /^[A-Za-z0-9][A-Za-z0-9._@:-]{0,127}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEY_CHARS = /^[\x21-\x7e]+$/;

/** What the operators loader needs from the main loader. */
export interface OperatorLoadContext {
  /** Reads a key variable, reporting an unset or malformed one at `at` (the main loader's rule). */
  readonly keyOf: (at: Located, envName: string, what: string) => string | undefined;
  /** Shortest accepted key. */
  readonly minKeyLength: number;
  /** The clients loaded so far (their keys must differ from every operator key). */
  readonly clients: readonly ClientConfig[];
}

/**
 * Validates `operators: [{ id, api_key_env }]`. Ids are unique, keys are at least `minKeyLength`
 * printable ASCII characters, unique among operators, and differ from every client key (problems name
 * the other operator or client, never the key).
 */
export function loadOperators(r: Reader, at: Located, context: OperatorLoadContext): OperatorConfig[] {
  const out: OperatorConfig[] = [];
  if (!r.present(at)) return out;
  const ids = new Set<string>();
  const keys = new Map<string, string>();
  const clientKeys = new Map(context.clients.map((c) => [c.apiKey, c.id]));
  for (const item of r.list(at) ?? []) {
    const entries = r.map(item, ["id", "api_key_env"]);
    if (entries === undefined) continue;
    const idAt = child(entries, item, "id");
    const id = r.string(idAt);
    if (id !== undefined && !OPERATOR_ID.test(id)) {
      r.problems.add(idAt, "must be 1-128 letters, digits or . _ @ : - starting with a letter or digit");
    } else if (id !== undefined && ids.has(id)) {
      r.problems.add(idAt, `duplicate operator id "${id}"`);
    }
    if (id !== undefined) ids.add(id);
    const envAt = child(entries, item, "api_key_env");
    const envName = r.string(envAt);
    if (envName === undefined) continue;
    if (!ENV_NAME.test(envName)) {
      r.problems.add(envAt, `"${envName}" is not an environment variable name`);
      continue;
    }
    const key = context.keyOf(envAt, envName, `API key of operator ${id}`);
    if (key === undefined) continue;
    if (key.length < context.minKeyLength || !KEY_CHARS.test(key)) {
      r.problems.add(
        envAt,
        `the key in ${envName} must be at least ${context.minKeyLength} printable ASCII characters without spaces`,
      );
    } else if (clientKeys.has(key)) {
      // Never quote the key: name the client instead.
      r.problems.add(envAt, `operator ${id} has the same API key as client ${clientKeys.get(key)}`);
    } else if (keys.has(key)) {
      r.problems.add(envAt, `operator ${id} has the same API key as operator ${keys.get(key)}`);
    } else if (id !== undefined) {
      keys.set(key, id);
      out.push(Object.freeze({ id, apiKeyEnv: envName, apiKey: key }));
    }
  }
  return out;
}
