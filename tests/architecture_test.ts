/**
 * The dependency rules of DESIGN.md §1, checked on the source text: the engine stands alone and its
 * stage folders import each other in one direction (no cycles, not even among the compile modules), the
 * worker is reached only by URL and loads no host code, the core never depends on its adapters, and
 * every folder is entered through its `mod.ts`.
 *
 * Imports are read from top-level `import`/`export ... from` statements (deno fmt puts them at column 0,
 * so examples inside doc comments are not mistaken for imports) and from `import("...")` calls.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);
const SKIPPED_DIRS = new Set(["node_modules", ".tools", ".git", "build"]);

interface Source {
  /** Repository-relative path with `/` separators. */
  readonly path: string;
  readonly text: string;
  /** Repository-relative paths of the local files it imports. */
  readonly local: readonly string[];
  /** Specifiers that are not relative paths (`npm:`, `node:`, import-map names). */
  readonly external: readonly string[];
}

function collect(dir: string, out: string[]): void {
  for (const entry of Deno.readDirSync(new URL(dir, ROOT))) {
    if (entry.isDirectory && !SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith(".")) {
      collect(`${dir}${entry.name}/`, out);
    } else if (entry.isFile && entry.name.endsWith(".ts")) {
      out.push(`${dir}${entry.name}`);
    }
  }
}

const STATIC_IMPORT = /^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm;
const BARE_IMPORT = /^import\s*["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

function resolve(from: string, specifier: string): string {
  return new URL(specifier, new URL(from, ROOT)).pathname.slice(ROOT.pathname.length);
}

function read(path: string): Source {
  const text = Deno.readTextFileSync(new URL(path, ROOT));
  const local: string[] = [];
  const external: string[] = [];
  for (const re of [STATIC_IMPORT, BARE_IMPORT, DYNAMIC_IMPORT]) {
    for (const m of text.matchAll(re)) {
      if (m[1].startsWith(".")) local.push(resolve(path, m[1]));
      else external.push(m[1]);
    }
  }
  return { path, text, local, external };
}

const SOURCES: ReadonlyMap<string, Source> = (() => {
  const paths: string[] = [];
  collect("", paths);
  return new Map(paths.map((p) => [p, read(p)]));
})();

function source(path: string): Source {
  const s = SOURCES.get(path);
  assert.ok(s, `${path} exists`);
  return s;
}

/** Every local module reachable from `entry` by imports. */
function graph(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.pop()!;
    if (seen.has(path) || !path.endsWith(".ts")) continue;
    seen.add(path);
    pending.push(...source(path).local);
  }
  return seen;
}

const isTest = (path: string) => path.endsWith("_test.ts") || path.startsWith("tests/");
const inside = (path: string, folder: string) => path.startsWith(`${folder}/`);

/** Code without comments (roughly: enough to tell whether an API is used, not mentioned). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:\\])\/\/.*$/gm, "$1");
}

/** Shipped code and runnable programs: not tests, benchmarks or policy tooling. */
const PRODUCT = [...SOURCES.values()].filter((s) =>
  !isTest(s.path) && !s.path.startsWith("bench/") && !s.path.startsWith("policies/")
);

function violations(check: (s: Source) => string[], sources: Iterable<Source> = SOURCES.values()): string[] {
  return [...sources].flatMap(check);
}

Deno.test("architecture: the Starlark engine imports nothing outside src/starlark", () => {
  const found = violations((s) => {
    if (!inside(s.path, "src/starlark")) return [];
    // The `deno task star` launcher is no part of the engine: it shares the bundle cache with the server's.
    const local = s.local.filter((p) =>
      !inside(p, "src/starlark") && p.endsWith(".ts") &&
      !(s.path === "src/starlark/cli_launcher.ts" && p === "src/bundle/mod.ts")
    );
    // Tests may use node:assert; the engine itself uses no runtime modules at all.
    const external = s.external.filter((x) => !(isTest(s.path) && x.startsWith("node:")));
    return [...local, ...external].map((x) => `${s.path} -> ${x}`);
  });
  assert.deepEqual(found, []);
});

Deno.test("architecture: the engine library (everything src/starlark/mod.ts loads) uses no Deno APIs", () => {
  const modules = graph("src/starlark/mod.ts");
  assert.ok(modules.size > 10, "the engine graph was read");
  const found = [...modules].filter((p) => /\bDeno\./.test(code(source(p).text)));
  assert.deepEqual(found, []);
});

Deno.test("architecture: nothing outside workers/ imports the worker; the host names it by URL", () => {
  const found = violations((s) =>
    inside(s.path, "workers")
      ? []
      : s.local.filter((p) => inside(p, "workers")).map((p) => `${s.path} -> ${p}`)
  );
  assert.deepEqual(found, []);
  const sandbox = source("src/executor/sandbox.ts");
  const url = /new URL\("([^"]*workers\/[^"]+)", import\.meta\.url\)/.exec(sandbox.text)?.[1];
  assert.ok(url, "the sandbox names its worker module by URL");
  assert.ok(SOURCES.has(resolve(sandbox.path, url)), `${url} exists`);
});

// The worker is the executor's other half: it may load the engine and the executor's engine-side
// modules, never the pool, the host's checks, the core's dispatch or an npm package.
const WORKER_SIDE = new Set([
  "src/errors.ts",
  "src/schema.ts",
  "src/suggest/mod.ts",
  "src/executor/codec.ts",
  "src/executor/contract.ts",
  "src/executor/idle_release.ts",
  "src/executor/program.ts",
  "src/executor/program_hints.ts",
  "src/executor/print_output.ts",
  "src/executor/protocol.ts",
  "src/executor/process_protocol.ts",
  "src/executor/star_codec.ts",
]);

Deno.test("architecture: the process child loads only the engine and the executor's engine side", () => {
  const modules = graph("workers/sandbox_process.ts");
  const found = [...modules].filter((p) =>
    !inside(p, "workers") && !inside(p, "src/starlark") && !WORKER_SIDE.has(p)
  );
  assert.deepEqual(found, []);
  const external = [...modules].flatMap((p) => source(p).external.map((x) => `${p} -> ${x}`));
  assert.deepEqual(external, []);
});

Deno.test("architecture: the worker loads only the engine and the executor's engine side", () => {
  const modules = graph("workers/sandbox_worker.ts");
  const found = [...modules].filter((p) =>
    !inside(p, "workers") && !inside(p, "src/starlark") && !WORKER_SIDE.has(p)
  );
  assert.deepEqual(found, []);
  const external = [...modules].flatMap((p) => source(p).external.map((x) => `${p} -> ${x}`));
  assert.deepEqual(external, []);
  // The worker's own self-check probes Deno APIs to prove it has no permissions; what it loads uses none.
  const denoApis = [...modules].filter((p) => !inside(p, "workers") && /\bDeno\./.test(code(source(p).text)));
  assert.deepEqual(denoApis, []);
});

const ADAPTERS = (p: string) =>
  p === "mcp.ts" || p === "deploy.ts" || inside(p, "src/mcp") || inside(p, "src/demo");
const CORE_LAYERS = (p: string) =>
  /^src\/[^/]+\.ts$/.test(p) ||
  ["src/core", "src/executor", "src/search", "src/authz", "src/starlark", "workers", "authz"]
    .some((f) => inside(p, f)) ||
  p === "mod.ts" || p === "authz.ts";

Deno.test("architecture: the core, executor and engine never import the MCP adapter or the demo", () => {
  const found = violations((s) =>
    CORE_LAYERS(s.path) ? s.local.filter(ADAPTERS).map((p) => `${s.path} -> ${p}`) : []
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: the gateway imports the core, never the reverse", () => {
  const found = violations((s) =>
    CORE_LAYERS(s.path) || ADAPTERS(s.path)
      ? s.local.filter((p) => inside(p, "src/gateway") || p === "gateway.ts").map((p) => `${s.path} -> ${p}`)
      : []
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: the root entry does not load the Rego authorizer or its wasm runtime", () => {
  for (const entry of ["mod.ts", "authz.ts", "mcp.ts"]) {
    const modules = [...graph(entry)];
    assert.deepEqual(modules.filter((p) => inside(p, "src/authz/rego")), [], entry);
    const opa = modules.filter((p) => source(p).external.some((x) => x.includes("opa-wasm")));
    assert.deepEqual(opa, [], entry);
  }
});

/** Folders under src/ that expose a mod.ts (nested folders of such a folder are its own business). */
function moduleFolders(): string[] {
  const folders = new Set<string>();
  for (const path of SOURCES.keys()) {
    const m = /^(src\/(?:[^/]+\/)*?[^/]+)\/mod\.ts$/.exec(path);
    if (m) folders.add(m[1]);
  }
  return [...folders].filter((f) => ![...folders].some((g) => g !== f && inside(f, g))).sort();
}

Deno.test("architecture: each folder of src/ has one mod.ts, and code elsewhere enters through it", () => {
  const folders = moduleFolders();
  assert.deepEqual(folders, [
    "src/auth",
    "src/authz/rego",
    "src/bundle",
    "src/console",
    "src/core",
    "src/demo",
    "src/executor",
    "src/gateway",
    "src/jsonschema",
    "src/limits",
    "src/openapi",
    "src/search",
    "src/starlark",
    "src/suggest",
  ]);
  // src/mcp's surface is the root mcp.ts (its other modules are the Deploy and CLI programs); src/authz
  // only holds authorizer implementations, each a folder of its own.
  const direct = new Set([...SOURCES.keys()].map((p) => /^src\/([^/]+)\//.exec(p)?.[1]).filter((d) => d));
  assert.deepEqual(
    [...direct].filter((d) => !folders.includes(`src/${d}`) && d !== "mcp" && d !== "authz"),
    [],
    "a new folder under src/ needs a mod.ts",
  );

  const found = violations((s) =>
    s.local.flatMap((p) => {
      const folder = folders.find((f) => inside(p, f));
      if (folder === undefined || inside(s.path, folder) || p === `${folder}/mod.ts`) return [];
      if (inside(s.path, "workers") && WORKER_SIDE.has(p)) return [];
      return [`${s.path} -> ${p}`];
    }), PRODUCT);
  assert.deepEqual(found, []);
});

Deno.test("architecture: only the two launchers load the bundle cache (it runs deno and writes files)", () => {
  const found = violations(
    (s) => s.local.filter((p) => inside(p, "src/bundle")).map((p) => `${s.path} -> ${p}`),
    PRODUCT,
  )
    .filter((v) => !inside(v, "src/bundle")).sort();
  assert.deepEqual(found, [
    "src/mcp/serve_launcher.ts -> src/bundle/mod.ts",
    "src/starlark/cli_launcher.ts -> src/bundle/mod.ts",
  ]);
});

Deno.test("architecture: only the root entries and example programs reach into src/mcp", () => {
  const found = violations((s) => {
    if (
      inside(s.path, "src/mcp") || s.path === "mcp.ts" || s.path === "deploy.ts" || inside(s.path, "examples")
    ) {
      return [];
    }
    return s.local.filter((p) => inside(p, "src/mcp")).map((p) => `${s.path} -> ${p}`);
  }, PRODUCT);
  assert.deepEqual(found, []);
});

/** The gateway's composition root and the folder entry that exposes it. */
const GATEWAY_ROOTS = new Set(["src/gateway/gateway.ts", "src/gateway/mod.ts"]);
const gatewayLayer = (path: string) => /^src\/gateway\/[^/]+\//.test(path);

Deno.test("architecture: the gateway domain is a leaf (nothing of ours, no packages, no Deno APIs)", () => {
  const domain = [...SOURCES.values()].filter((s) => inside(s.path, "src/gateway/domain"));
  assert.ok(domain.some((s) => s.path === "src/gateway/domain/mod.ts"), "the domain was read");
  const found = domain.flatMap((s) => {
    const local = s.local.filter((p) => !inside(p, "src/gateway/domain"));
    const external = s.external.filter((x) => !(isTest(s.path) && x.startsWith("node:")));
    const deno = !isTest(s.path) && /\bDeno\./.test(code(s.text)) ? ["Deno.*"] : [];
    return [...local, ...external, ...deno].map((x) => `${s.path} -> ${x}`);
  });
  assert.deepEqual(found, []);
});

Deno.test("architecture: no gateway layer imports the composition root back; layers meet at mod.ts", () => {
  const found = violations((s) =>
    gatewayLayer(s.path)
      ? s.local.filter((p) => {
        if (GATEWAY_ROOTS.has(p)) return true;
        // Another layer's internals: only its mod.ts is its surface.
        const layer = /^src\/gateway\/([^/]+)\//.exec(p)?.[1];
        return layer !== undefined && !inside(s.path, `src/gateway/${layer}`) &&
          !p.endsWith(`/${layer}/mod.ts`);
      }).map((p) => `${s.path} -> ${p}`)
      : []
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: src/limits stands alone; its domain is a leaf; only the Redis adapter loads ioredis", () => {
  const limits = [...SOURCES.values()].filter((s) => inside(s.path, "src/limits"));
  assert.ok(limits.some((s) => s.path === "src/limits/domain.ts"), "the limits were read");
  const found = limits.flatMap((s) => {
    const outside = s.local.filter((p) => !inside(p, "src/limits")).map((p) => `${s.path} -> ${p}`);
    const allowed = (x: string) =>
      (isTest(s.path) && x.startsWith("node:")) || (s.path === "src/limits/redis.ts" && x === "ioredis");
    return [...outside, ...s.external.filter((x) => !allowed(x)).map((x) => `${s.path} -> ${x}`)];
  });
  assert.deepEqual(found, []);
  const domain = source("src/limits/domain.ts");
  assert.deepEqual([...domain.local, ...domain.external], []);
  assert.equal(/\bDeno\./.test(code(domain.text)), false, "the limits domain uses no Deno APIs");
  // The Redis adapter is loaded on demand: a gateway with the memory store never loads the client.
  const staticRedis = limits.filter((s) =>
    [...s.text.matchAll(STATIC_IMPORT)].some((m) => m[1] === "./redis.ts")
  ).map((s) => s.path);
  assert.deepEqual(staticRedis.filter((p) => !isTest(p)), []);
  // And nothing below the gateway's composition reaches into the limits but through their mod.ts.
  const gatewayUse = violations((s) =>
    CORE_LAYERS(s.path) ? s.local.filter((p) => inside(p, "src/limits")).map((p) => `${s.path} -> ${p}`) : []
  );
  assert.deepEqual(gatewayUse, []);
});

Deno.test("architecture: src/auth stands alone; its domain is a leaf; only jose is loaded", () => {
  const auth = [...SOURCES.values()].filter((s) => inside(s.path, "src/auth"));
  assert.ok(auth.some((s) => s.path === "src/auth/domain.ts"), "the auth module was read");
  const found = auth.flatMap((s) => {
    const outside = s.local.filter((p) => !inside(p, "src/auth")).map((p) => `${s.path} -> ${p}`);
    const allowed = (x: string) => x === "jose" || (isTest(s.path) && x.startsWith("node:"));
    return [...outside, ...s.external.filter((x) => !allowed(x)).map((x) => `${s.path} -> ${x}`)];
  });
  assert.deepEqual(found, []);
  const domain = source("src/auth/domain.ts");
  assert.deepEqual([...domain.local, ...domain.external], []);
  assert.equal(/\bDeno\./.test(code(domain.text)), false, "the auth domain uses no Deno APIs");
  // The engine and the core never authenticate: the HTTP surfaces (gateway, src/mcp) do.
  const below = violations((s) =>
    CORE_LAYERS(s.path) ? s.local.filter((p) => inside(p, "src/auth")).map((p) => `${s.path} -> ${p}`) : []
  );
  assert.deepEqual(below, []);
});

Deno.test("architecture: the console stands alone; its domain is a leaf; the gateway reaches it at mod.ts", () => {
  const console = [...SOURCES.values()].filter((s) => inside(s.path, "src/console"));
  assert.ok(console.some((s) => s.path === "src/console/domain.ts"), "the console was read");
  const found = console.flatMap((s) => {
    const outside = s.local.filter((p) => !inside(p, "src/console")).map((p) => `${s.path} -> ${p}`);
    // Only the vendoring step reads the charting package; tests may use node:assert.
    const external = s.external.filter((x) =>
      !(isTest(s.path) && x.startsWith("node:")) && !(s.path === "src/console/vendor.ts" && x === "uplot")
    ).map((x) => `${s.path} -> ${x}`);
    return [...outside, ...external];
  });
  assert.deepEqual(found, []);
  const domain = source("src/console/domain.ts");
  assert.deepEqual([...domain.local, ...domain.external], []);
  assert.equal(/\bDeno\./.test(code(domain.text)), false, "the console domain uses no Deno APIs");
  // The gateway's composition root and its HTTP edge use the console; no other product code does.
  const users = PRODUCT.filter((s) =>
    !inside(s.path, "src/console") && s.local.some((p) => inside(p, "src/console"))
  )
    .map((s) => s.path).sort();
  assert.deepEqual(users, ["src/gateway/console.ts", "src/gateway/gateway.ts", "src/gateway/http/edge.ts"]);
});

Deno.test("architecture: src/openapi stands on the core and the shared schema converter; its domain is a leaf", () => {
  const openapi = [...SOURCES.values()].filter((s) => inside(s.path, "src/openapi") && !isTest(s.path));
  assert.ok(openapi.some((s) => s.path === "src/openapi/domain.ts"), "the OpenAPI subsystem was read");
  const allowedLocal = (p: string) =>
    inside(p, "src/openapi") || ["src/core/mod.ts", "src/jsonschema/mod.ts", "src/errors.ts", "src/schema.ts"]
      .includes(p);
  const allowedExternal = (x: string) => x === "@apidevtools/swagger-parser" || x === "yaml";
  const found = openapi.flatMap((s) =>
    [
      ...s.local.filter((p) => !allowedLocal(p)),
      ...s.external.filter((x) => !allowedExternal(x)),
    ].map((x) => `${s.path} -> ${x}`)
  );
  assert.deepEqual(found, []);
  const domain = source("src/openapi/domain.ts");
  assert.deepEqual([...domain.local, ...domain.external], []);
  assert.equal(/\bDeno\./.test(code(domain.text)), false, "the OpenAPI domain uses no Deno APIs");
  // The shared converter serves the gateway and OpenAPI alike, so it depends on neither.
  const converter = violations((s) =>
    inside(s.path, "src/jsonschema")
      ? s.local.filter((p) => inside(p, "src/gateway") || inside(p, "src/openapi") || inside(p, "src/mcp"))
        .map((p) => `${s.path} -> ${p}`)
      : []
  );
  assert.deepEqual(converter, []);
  // Only the root entry and the serve CLI load the subsystem (with its npm validator).
  const users = violations(
    (s) =>
      inside(s.path, "src/openapi") || s.path === "openapi.ts" || s.path === "src/mcp/serve_cli.ts"
        ? []
        : s.local.filter((p) => inside(p, "src/openapi")).map((p) => `${s.path} -> ${p}`),
    PRODUCT,
  );
  assert.deepEqual(users, []);
});

const ENGINE = "src/starlark";

/** The engine folder of `path` (`""` for the files at the engine's root: mod.ts, cli.ts). */
function engineFolder(path: string): string {
  const rest = path.slice(ENGINE.length + 1);
  return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : "";
}

/** The engine's shipped modules (tests may import any stage they exercise) and the engine modules each imports. */
function engineImports(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const s of SOURCES.values()) {
    if (!inside(s.path, ENGINE) || isTest(s.path)) continue;
    edges.set(s.path, s.local.filter((p) => inside(p, ENGINE) && p.endsWith(".ts") && !isTest(p)));
  }
  return edges;
}

/** The strongly connected components of more than one node (each one holds at least one cycle). */
function cycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** The imports between members of each cycle, as `from -> to` lines, so a failure names the culprits. */
function describeCycles(
  components: string[][],
  imports: ReadonlyMap<string, readonly string[]>,
  nodeOf: (path: string) => string,
): string[] {
  return components.map((c) => {
    const members = new Set(c);
    const lines = [...imports].flatMap(([from, tos]) =>
      tos.filter((to) => nodeOf(from) !== nodeOf(to) && members.has(nodeOf(from)) && members.has(nodeOf(to)))
        .map((to) => `${from} -> ${to}`)
    );
    return `cycle through ${c.join(", ")}:\n  ${lines.join("\n  ")}`;
  });
}

Deno.test("architecture: the engine's folders import each other without a cycle", () => {
  const imports = engineImports();
  assert.ok(imports.size > 50, "the engine was read");
  const folders = new Map<string, string[]>();
  for (const [from, tos] of imports) {
    const f = engineFolder(from);
    const out = folders.get(f) ?? [];
    for (const to of tos) {
      if (engineFolder(to) !== f && !out.includes(engineFolder(to))) out.push(engineFolder(to));
    }
    folders.set(f, out);
  }
  assert.ok(
    folders.has("values") && folders.has("eval") && folders.has("methods"),
    "the stage folders exist",
  );
  assert.deepEqual(describeCycles(cycles(folders), imports, engineFolder), []);
});

Deno.test("architecture: the eval/compile* modules import each other without a cycle", () => {
  const imports = new Map(
    [...engineImports()].filter(([p]) => inside(p, `${ENGINE}/eval`)).map((
      [p, tos],
    ) => [p, tos.filter((t) => inside(t, `${ENGINE}/eval`))]),
  );
  const compileModules = [...imports.keys()].filter((p) => /\/eval\/compile[^/]*\.ts$/.test(p));
  assert.ok(compileModules.length >= 5, "the compile modules were read");
  // A cycle may run through a helper module (pairs.ts), so the whole of eval/ is searched; only cycles
  // that involve a compile module count here.
  const found = cycles(imports).filter((c) => c.some((p) => compileModules.includes(p)));
  assert.deepEqual(describeCycles(found, imports, (p) => p), []);
});

// The engine's stages from the bottom up: a folder imports only folders of earlier stages. The value
// layer stands on nothing but the character tables; the library (methods, built-ins, modules) on the
// values; the evaluator on all of them; the engine's root (mod.ts, cli.ts) puts them together.
const ENGINE_STAGES: readonly (readonly string[])[] = [
  ["unicode"],
  ["values"],
  ["syntax"],
  ["resolve"],
  ["methods"],
  ["builtins", "lib"],
  ["eval"],
  [""],
];

Deno.test("architecture: each engine folder imports only earlier stages; others enter values/ by its mod.ts", () => {
  const stage = (folder: string) => ENGINE_STAGES.findIndex((s) => s.includes(folder));
  const found: string[] = [];
  for (const [from, tos] of engineImports()) {
    const f = engineFolder(from);
    if (stage(f) < 0) found.push(`${from}: its folder is in no stage`);
    for (const to of tos) {
      const t = engineFolder(to);
      if (t !== f && !(stage(t) < stage(f))) found.push(`${from} -> ${to}`);
      if (t === "values" && f !== "values" && to !== `${ENGINE}/values/mod.ts`) {
        found.push(`${from} -> ${to} (not through values/mod.ts)`);
      }
    }
  }
  assert.deepEqual(found, []);
});
