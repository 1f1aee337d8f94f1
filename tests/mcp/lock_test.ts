/**
 * Running the product fetches only what it needs (issue 11): on an empty cache Deno installs every npm
 * package `deno.lock` lists, so the lock may hold only the packages `deno.json` imports and their own
 * dependencies. Test tools (the MCP conformance suite, the reference servers the gateway tests start) run
 * outside the project's configuration and never enter it.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

interface Lock {
  readonly specifiers: Record<string, string>;
  readonly npm: Record<
    string,
    { readonly dependencies?: string[]; readonly optionalDependencies?: string[] }
  >;
}

/** `name` of a lock key `name@version[_peers]` or of a specifier `npm:name@range`. */
function packageName(s: string): string {
  const bare = s.startsWith("npm:") ? s.slice(4).replace(/^\//, "") : s;
  return bare.slice(0, bare.indexOf("@", 1));
}

Deno.test("deno.lock holds only the product's packages and their dependencies", () => {
  const config = JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT)));
  const lock: Lock = JSON.parse(Deno.readTextFileSync(new URL("deno.lock", ROOT)));
  const imported = new Set(
    Object.values(config.imports as Record<string, string>).filter((v) => v.startsWith("npm:")).map(
      packageName,
    ),
  );
  const keys = Object.keys(lock.npm);
  const resolve = (dep: string): string => {
    const exact = dep.indexOf("@", 1) > 0;
    const found = keys.filter((k) => exact ? k === dep || k.startsWith(`${dep}_`) : packageName(k) === dep);
    assert.equal(found.length, 1, `${dep} resolves to one locked package: ${found}`);
    return found[0];
  };
  // Walk from the imported packages through their dependencies; everything else is an intruder.
  const roots = Object.entries(lock.specifiers)
    .filter(([spec]) => imported.has(packageName(spec)))
    .map(([spec, version]) => `${packageName(spec)}@${version}`);
  assert.ok(roots.length >= imported.size, `every import is locked: ${roots}`);
  const seen = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const key = pending.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = lock.npm[key];
    assert.ok(entry, `${key} is locked`);
    for (const dep of [...entry.dependencies ?? [], ...entry.optionalDependencies ?? []]) {
      pending.push(resolve(dep));
    }
  }
  assert.deepEqual(keys.filter((k) => !seen.has(k)), [], "packages no product import needs");
  const stray = Object.keys(lock.specifiers).filter((s) =>
    !seen.has(`${packageName(s)}@${lock.specifiers[s]}`)
  );
  assert.deepEqual(stray, [], "specifiers nothing in deno.json imports");
});
