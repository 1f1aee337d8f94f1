/**
 * docs/gateway-config.md does not drift from the loader: every key the loader accepts (its key lists,
 * read from its source, and the core's code-mode limit fields) has a row in the reference, and every
 * row names a key the loader accepts.
 */
import assert from "node:assert/strict";
import { LIMIT_FIELDS } from "../../src/core/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFileSync(new URL(path, ROOT));

/** The keys the loader accepts: the named key lists and the inline lists `r.map` checks against. */
function acceptedKeys(): Set<string> {
  const keys = new Set<string>();
  // The loader's parts (load.ts and its load_*.ts sections) and the sections in files of their own.
  const parts = [...Deno.readDirSync(new URL("src/gateway/config/", ROOT))].map((e) => e.name)
    .filter((n) => /^load(_[a-z]+)?\.ts$/.test(n));
  const files = [...parts, "limits.ts", "oauth.ts", "operators.ts"].map((f) =>
    read(`src/gateway/config/${f}`)
  );
  const lists = [
    /const (?:TOP|KEYS|RULE_KEYS|COMMON_DS|STDIO_DS|HTTP_DS) = \[([^\]]*)\]/g,
    /\br\.map\(\w+, \[([^\]]*)\]\)/g,
  ];
  for (const text of files) {
    for (const re of lists) {
      for (const m of text.matchAll(re)) for (const k of m[1].matchAll(/"([a-z_]+)"/g)) keys.add(k[1]);
    }
  }
  for (const f of LIMIT_FIELDS) keys.add(f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  return keys;
}

/** The keys the reference documents: the first column of its tables, plus `introspection`'s keys. */
function documentedKeys(doc: string): Set<string> {
  const keys = new Set([...doc.matchAll(/^\| `([a-z_]+)` /gm)].map((m) => m[1]));
  const introspection = /`introspection` keys: ([^.]*)/.exec(doc)?.[1] ?? "";
  for (const m of introspection.matchAll(/`([a-z_]+)`/g)) keys.add(m[1]);
  return keys;
}

Deno.test("config reference: every key the loader accepts is documented, and only those", () => {
  const accepted = acceptedKeys();
  // The source was read: the lists hold the keys every gateway needs, http downstreams' included.
  for (
    const k of ["listen", "downstreams", "url", "headers", "sink", "open_ms", "rules", "issuer", "endpoint"]
  ) {
    assert.ok(accepted.has(k), `the loader's lists were read (${k})`);
  }
  assert.ok(accepted.size > 60, `${accepted.size} keys read`);
  const documented = documentedKeys(read("docs/gateway-config.md"));
  assert.deepEqual([...accepted].filter((k) => !documented.has(k)).sort(), [], "accepted but not documented");
  assert.deepEqual([...documented].filter((k) => !accepted.has(k)).sort(), [], "documented but not accepted");
});

Deno.test("config reference: the README's gateway section links it", () => {
  assert.match(read("README.md"), /\]\(docs\/gateway-config\.md\)/);
});
