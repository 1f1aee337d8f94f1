/**
 * Catalog redaction: every metadata field of every tool, generated field by field, and the tools whose
 * names carry a secret left out with a log line that does not quote it.
 */
import assert from "node:assert/strict";
import { Catalog, type JsonObject, makeTool, type ToolListing, toolRef } from "../domain/mod.ts";
import { CatalogRedaction, redactCatalog, REDACTED, Redactor } from "./mod.ts";

const SECRET = 'md-"secret\\-0042';

const FIELDS: Record<string, (s: string) => Partial<ToolListing>> = {
  title: (s) => ({ title: `Title ${s}` }),
  description: (s) => ({ description: `Uses ${s} to sign` }),
  "input property description": (s) => ({
    inputSchema: { type: "object", properties: { a: { type: "string", description: s } } },
  }),
  "input enum": (s) => ({ inputSchema: { type: "object", properties: { a: { enum: ["x", s] } } } }),
  "input default": (s) => ({ inputSchema: { type: "object", properties: { a: { default: s } } } }),
  "input property name": (s) => ({
    inputSchema: { type: "object", properties: { [s]: { type: "string" } } },
  }),
  "input examples, JSON-encoded twice": (s) => ({
    inputSchema: { type: "object", examples: [JSON.stringify(JSON.stringify({ k: s }))] },
  }),
  "output schema": (s) => ({
    outputSchema: { type: "object", properties: { r: { type: "string", title: `r ${s}` } } },
  }),
  annotations: (s) => ({ annotations: { title: s, readOnlyHint: true } }),
  icons: (s) => ({ icons: [{ src: `https://icons.example/${s}.png` }] }),
};

function tool(name: string, extra: Partial<ToolListing> = {}) {
  return makeTool({ ref: toolRef("ds", name), inputSchema: { type: "object" }, ...extra });
}

function forms(secret: string): string[] {
  const out = [secret];
  for (let i = 0; i < 4; i++) out.push(JSON.stringify(out[out.length - 1]).slice(1, -1));
  return out;
}

Deno.test("catalog redaction: every metadata field is redacted, the rest of the tool kept", () => {
  const r = new Redactor({ secrets: [SECRET] });
  for (const [field, make] of Object.entries(FIELDS)) {
    const source = new Catalog([tool("clean"), tool("leaky", make(SECRET))]);
    const { catalog, dropped } = redactCatalog(source, r);
    assert.deepEqual(dropped, []);
    assert.deepEqual(catalog.tools.map((t) => t.name), ["ds__clean", "ds__leaky"], field);
    const text = JSON.stringify(catalog.tools);
    for (const form of forms(SECRET)) assert.ok(!text.includes(form), `${field}: ${text}`);
    assert.ok(text.includes(REDACTED), field);
    // An untouched tool is the same object; the catalog's lookup sees the redacted tool.
    assert.equal(catalog.lookup("ds__clean"), source.lookup("ds__clean"));
    assert.notEqual(catalog.lookup("ds__leaky"), source.lookup("ds__leaky"));
  }
});

Deno.test("catalog redaction: a tool whose name carries a secret is left out, logged without it", () => {
  const nameSecret = "NameSecret77";
  const r = new Redactor({ secrets: [nameSecret] });
  const lines: string[] = [];
  const view = new CatalogRedaction((l) => lines.push(l));
  const source = new Catalog([tool("ok"), tool(`get_${nameSecret}`), tool(`${nameSecret}x`)]);
  const catalog = view.of(source, r);
  assert.deepEqual(catalog.tools.map((t) => t.name), ["ds__ok"]);
  assert.equal(catalog.lookup(`ds__get_${nameSecret}`), undefined);
  assert.equal(lines.length, 2);
  assert.deepEqual(lines, [
    "gateway: tool #2 of downstream ds left out: its name contains a secret",
    "gateway: tool #3 of downstream ds left out: its name contains a secret",
  ]);
  // Computed once per (catalog, redactor): no second log, the same view.
  assert.equal(view.of(source, r), catalog);
  assert.equal(lines.length, 2);
  // A reload's new redactor recomputes the view.
  const none = view.of(source, new Redactor({ secrets: ["other-secret-1"] }));
  assert.equal(none.size, 3);
  assert.equal(none, source, "nothing to redact: the catalog itself");
});

Deno.test("catalog redaction: patterns apply to metadata like secrets", () => {
  const r = new Redactor({ patterns: [{ name: "aws", regex: "AKIA[0-9A-Z]{16}", anchor: "AKIA" }] });
  const key = "AKIA" + "ABCDEFGHIJ234567";
  const { catalog } = redactCatalog(
    new Catalog([tool("t", { description: `key ${key}`, annotations: { note: key } as JsonObject })]),
    r,
  );
  assert.equal(catalog.tools[0].description, `key ${REDACTED}`);
  assert.deepEqual(catalog.tools[0].annotations, { note: REDACTED });
});
