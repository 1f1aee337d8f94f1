/**
 * The `clients:` section of the gateway configuration: ids, API keys read from the environment (never
 * quoted in a problem), serve modes and OAuth subjects.
 *
 * @module
 */
import type { ClientConfig, ServeMode } from "./types.ts";
import { child, type Located, type Reader } from "./yaml_tree.ts";
import { loadOAuthSubjects } from "./oauth.ts";
import {
  CLIENT_ID,
  ENV_NAME,
  type EnvLookup,
  envValue,
  KEY_CHARS,
  type LoadOptions,
  MIN_API_KEY_LENGTH,
  MODES,
  unusableKey,
} from "./load_shared.ts";

/** Loads the clients; `ids` holds every id named, also of entries with problems. */
export function loadClients(
  r: Reader,
  env: EnvLookup,
  at: Located,
  options: LoadOptions & { readonly oauth?: boolean } = {},
): { clients: ClientConfig[]; ids: Set<string> } {
  const out: ClientConfig[] = [];
  const ids = new Set<string>();
  if (!r.present(at)) return { clients: out, ids };
  const keys = new Map<string, string>();
  const subjects = new Map<string, string>();
  for (const item of r.list(at) ?? []) {
    const entries = r.map(item, ["id", "api_key_env", "mode", "oauth_subjects"]);
    if (entries === undefined) continue;
    const modeAt = child(entries, item, "mode");
    const mode: ServeMode | undefined = r.present(modeAt) ? r.oneOf(modeAt, MODES) : undefined;
    const idAt = child(entries, item, "id");
    const id = r.string(idAt);
    if (id !== undefined && !CLIENT_ID.test(id)) {
      r.problems.add(idAt, "must be 1-128 letters, digits or . _ @ : - starting with a letter or digit");
    } else if (id !== undefined && ids.has(id)) {
      r.problems.add(idAt, `duplicate client id "${id}"`);
    }
    if (id !== undefined) ids.add(id);
    const envAt = child(entries, item, "api_key_env");
    const subjectsAt = child(entries, item, "oauth_subjects");
    const oauthSubjects = loadOAuthSubjects(r, subjectsAt, id, subjects);
    if (r.present(subjectsAt) && !options.oauth) {
      r.problems.add(subjectsAt, "oauth_subjects needs an oauth: section");
    }
    const extra = {
      ...(mode === undefined ? {} : { mode }),
      ...(oauthSubjects === undefined ? {} : { oauthSubjects: Object.freeze(oauthSubjects) }),
    };
    if (!r.present(envAt) && r.present(subjectsAt)) {
      // Signs in with OAuth only: an empty key, which no request can present.
      if (id !== undefined && oauthSubjects !== undefined) {
        out.push({ id, apiKeyEnv: "", apiKey: "", ...extra });
      }
      continue;
    }
    const envName = r.string(envAt);
    const ignored = options.clientKeys === "ignored";
    if (ignored && envName !== undefined && !ENV_NAME.test(envName)) {
      r.problems.add(envAt, `"${envName}" is not an environment variable name`);
    }
    const key = envName === undefined
      ? undefined
      : ignored
      ? unusableKey()
      : envValue(r, env, envAt, envName, `API key of client ${id}`);
    if (key !== undefined && (key.length < MIN_API_KEY_LENGTH || !KEY_CHARS.test(key))) {
      r.problems.add(
        envAt,
        `the key in ${envName} must be at least ${MIN_API_KEY_LENGTH} printable ASCII characters without spaces`,
      );
    } else if (key !== undefined && keys.has(key)) {
      // Never quote the key: name the other client instead.
      r.problems.add(envAt, `client ${id} has the same API key as client ${keys.get(key)}`);
    } else if (key !== undefined && id !== undefined) {
      keys.set(key, id);
      out.push({ id, apiKeyEnv: envName!, apiKey: key, ...extra });
    }
  }
  return { clients: out, ids };
}
