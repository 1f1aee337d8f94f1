/**
 * OPA bundles (`opa build -t wasm` output): a gzipped tar with `/policy.wasm`, `data.json` files and a
 * `.manifest`. Rego sources inside the bundle are ignored (they are compiled into the wasm); signatures
 * are not verified, so load bundles only from a trusted source.
 *
 * @module
 */
import { RegoLoadError } from "./errors.ts";
import { gunzip, readTar, type TarFile } from "./tar.ts";

/** The parts of a bundle the authorizer uses. */
export interface Bundle {
  /** The compiled policy module. */
  readonly wasm: Uint8Array;
  /** The merged base data document (`{}` when the bundle has no data files). */
  readonly data: Record<string, unknown>;
}

function bad(message: string, cause?: unknown): never {
  throw new RegoLoadError(
    "bundle",
    `rego: invalid bundle: ${message}`,
    cause === undefined ? undefined : { cause },
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseJson(file: TarFile): unknown {
  try {
    return JSON.parse(utf8.decode(file.data));
  } catch (err) {
    bad(`${file.name} is not valid JSON`, err);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Merges `value` into `target` at `path`; objects merge key by key, anything else must not collide. */
function mergeAt(target: Record<string, unknown>, path: string[], value: unknown, file: string): void {
  let node = target;
  for (let i = 0; i < path.length - 1; i++) {
    const next = Object.hasOwn(node, path[i]) ? node[path[i]] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      node[path[i]] = created;
      node = created;
    } else if (isObject(next)) node = next;
    else bad(`${file} conflicts with data at ${path.slice(0, i + 1).join(".")}`);
  }
  const key = path[path.length - 1];
  const existing = Object.hasOwn(node, key) ? node[key] : undefined;
  if (existing === undefined) node[key] = value;
  else if (isObject(existing) && isObject(value)) {
    for (const [k, v] of Object.entries(value)) mergeAt(existing, [k], v, file);
  } else bad(`${file} conflicts with data at ${path.join(".")}`);
}

/** The wasm module path named by the manifest, if it names exactly one. */
function manifestModule(files: Map<string, TarFile>): string | undefined {
  const manifest = files.get(".manifest");
  if (manifest === undefined) return undefined;
  const parsed = parseJson(manifest);
  if (!isObject(parsed)) bad(".manifest is not a JSON object");
  const wasm = parsed.wasm;
  if (wasm === undefined || wasm === null) return undefined;
  if (!Array.isArray(wasm)) bad(".manifest wasm is not an array");
  const modules = new Set<string>();
  for (const entry of wasm) {
    if (!isObject(entry) || typeof entry.module !== "string") bad(".manifest wasm entry has no module");
    modules.add(entry.module.replace(/^\/+/, ""));
  }
  if (modules.size > 1) {
    bad(`bundles with several wasm modules are not supported (${[...modules].join(", ")})`);
  }
  return modules.size === 1 ? [...modules][0] : undefined;
}

/** Decompresses and reads a bundle, checking its structure. */
export async function readBundle(bytes: Uint8Array, maxBytes: number): Promise<Bundle> {
  const list = readTar(await gunzip(bytes, maxBytes));
  const files = new Map(list.map((f) => [f.name, f]));
  const modulePath = manifestModule(files) ?? "policy.wasm";
  const wasmFile = files.get(modulePath);
  if (wasmFile === undefined) bad(`it has no ${modulePath} (build it with opa build -t wasm)`);
  const data: Record<string, unknown> = {};
  // Shallow paths first so a nested data.json merges into the object its parent defines.
  const dataFiles = list.filter((f) => f.name === "data.json" || f.name.endsWith("/data.json"))
    .sort((a, b) => a.name.split("/").length - b.name.split("/").length || (a.name < b.name ? -1 : 1));
  for (const f of list) {
    if (/(^|\/)data\.ya?ml$/.test(f.name)) {
      bad(`${f.name}: YAML data files are not supported; use data.json`);
    }
  }
  for (const file of dataFiles) {
    const value = parseJson(file);
    const dirs = file.name.split("/").slice(0, -1);
    if (dirs.length === 0) {
      if (!isObject(value)) bad("data.json at the bundle root must hold a JSON object");
      for (const [k, v] of Object.entries(value)) mergeAt(data, [k], v, file.name);
    } else mergeAt(data, dirs, value, file.name);
  }
  return { wasm: wasmFile.data, data };
}
