/**
 * Suggestions where a typo is likely, as a model reads them from `execute`: a wrong keyword lists the
 * accepted keywords and names the nearest, a wrong root (`crn`) or capability (`crm.delete_all`) names
 * the nearest capability the program may call. Typos are generated (one edit, a transposition, a case
 * change) over a generated catalog, and a disabled capability is never suggested.
 */
import assert from "node:assert/strict";
import { Builder, type CodeModeError, isCodeModeError, type Server, t } from "../../mod.ts";
import { allowAll } from "../../authz.ts";
import { editDistance, nearestName } from "../../src/suggest/mod.ts";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** A typo of `name`: one deletion, insertion, substitution, adjacent swap, or a case change. */
function typo(name: string, next: () => number): { kind: string; text: string } {
  const kinds = ["delete", "insert", "substitute", "transpose", "case"] as const;
  for (;;) {
    const kind = kinds[Math.floor(next() * kinds.length)];
    const i = Math.floor(next() * name.length);
    const letter = LETTERS[Math.floor(next() * LETTERS.length)];
    let text = name;
    if (kind === "delete" && name.length > 4) text = name.slice(0, i) + name.slice(i + 1);
    if (kind === "insert") text = name.slice(0, i) + letter + name.slice(i);
    if (kind === "substitute") text = name.slice(0, i) + letter + name.slice(i + 1);
    if (kind === "transpose" && i + 1 < name.length) {
      text = name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
    }
    if (kind === "case") text = name.toUpperCase();
    // A valid identifier that differs from the name (a typo may not start with a digit or be empty).
    if (text !== name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) return { kind, text };
  }
}

const ROOTS = ["billing", "tickets", "geo", "notes", "inventory", "reports", "weather", "crm"];
const LEAVES = ["lookup", "search", "create_invoice", "forecast", "stock_level", "summary", "close"];
const KEYWORDS = ["customer_id", "order_ref", "city", "query", "limit", "priority", "amount", "since"];

/** A catalog of `n` capabilities over distinct roots and leaves, with 1–3 keywords each. */
function catalog(seed: number, disabled: string[] = []): { builder: Builder; names: string[] } {
  const next = rng(seed);
  const builder = new Builder({ authorizer: allowAll(), executor: "inline", disabledCapabilities: disabled });
  const names: string[] = [];
  for (const root of ROOTS.slice(0, 4 + Math.floor(next() * 4))) {
    for (const leaf of LEAVES.filter(() => next() < 0.5)) {
      const name = `${root}.${leaf}`;
      const params = KEYWORDS.filter(() => next() < 0.3).slice(0, 3);
      if (params.length === 0) params.push("query");
      names.push(name);
      builder.register({
        id: name,
        name,
        summary: `The ${leaf} of ${root}`,
        input: t.struct(Object.fromEntries(params.map((p) => [p, t.optional(t.str())]))),
        output: t.struct({ ok: t.bool() }),
        handler: () => ({ ok: true }),
      });
    }
  }
  return { builder, names };
}

async function failure(server: Server, source: string): Promise<CodeModeError> {
  try {
    await server.execute({ id: "u" }, source);
  } catch (e) {
    if (isCodeModeError(e)) return e;
    throw e;
  }
  throw new Error(`no failure for\n${source}`);
}

Deno.test("nearestName: generated one-edit, transposition and case typos find their name", () => {
  const names = [...ROOTS, ...LEAVES, ...KEYWORDS];
  const next = rng(26);
  let checked = 0;
  for (let round = 0; round < 40; round++) {
    for (const name of names) {
      const { kind, text } = typo(name, next);
      // Skip a typo that is as near (or nearer) to another name: there the suggestion is a coin toss.
      const d = editDistance(text.toLowerCase(), name);
      if (names.some((o) => o !== name && editDistance(text.toLowerCase(), o) <= d)) continue;
      if (name.replace(/_/g, "").length < 3 && kind !== "case") continue;
      assert.equal(nearestName(text, names), name, `${kind}: ${text}`);
      checked++;
    }
  }
  assert.ok(checked > 500, `${checked}`);
  // Words of a compound name: `customer_id` where only `id` is accepted, and the reverse.
  assert.equal(nearestName("customer_id", ["id", "limit"]), "id");
  assert.equal(nearestName("order", ["order_id", "limit"]), "order_id");
  // Nothing near: no suggestion rather than a wild one.
  assert.equal(nearestName("zzzzzz", names), undefined);
  assert.equal(nearestName("x", ["fx", "geo"]), undefined);
});

Deno.test("execute: a mistyped keyword lists the accepted keywords and names the intended one", async () => {
  const next = rng(7);
  let checked = 0;
  for (let seed = 1; seed <= 6; seed++) {
    const { builder } = catalog(seed);
    const server = await builder.build();
    try {
      for (const cap of server.capabilities()) {
        const accepted = cap.input.fields.map((f) => f.name);
        const keyword = accepted[Math.floor(next() * accepted.length)];
        const { kind, text } = typo(keyword, next);
        if (accepted.includes(text)) continue;
        const d = editDistance(text.toLowerCase(), keyword);
        if (accepted.some((o) => o !== keyword && editDistance(text.toLowerCase(), o) <= d)) continue;
        const e = await failure(server, `def main():\n    return ${cap.name}(${text}="v")\n`);
        assert.equal(e.code, "invalid_arguments", e.message);
        assert.equal(
          e.detail,
          `${cap.name}: unexpected keyword argument "${text}" (did you mean ${keyword}?); ` +
            `accepted keyword arguments: ${accepted.join(", ")}`,
          `${kind}`,
        );
        checked++;
      }
    } finally {
      await server.close();
    }
  }
  assert.ok(checked > 20, `${checked}`);
});

Deno.test("execute: a mistyped root or capability names the nearest enabled one, never a disabled one", async () => {
  const next = rng(11);
  let roots = 0, members = 0;
  for (let seed = 1; seed <= 6; seed++) {
    const all = catalog(seed).names;
    // One capability per catalog is disabled: it is never suggested, even when the typo is one edit away.
    const hidden = all[Math.floor(next() * all.length)];
    const { builder } = catalog(seed, [hidden]);
    const server = await builder.build();
    try {
      const enabled = server.capabilities().map((c) => c.name);
      const enabledRoots = [...new Set(enabled.map((n) => n.split(".")[0]))];
      for (const root of enabledRoots) {
        const { text } = typo(root, next);
        if (root.length < 3 || enabledRoots.includes(text) || ["json", "math", "sum"].includes(text)) {
          continue;
        }
        const d = editDistance(text.toLowerCase(), root);
        if (enabledRoots.some((o) => o !== root && editDistance(text.toLowerCase(), o) <= d)) continue;
        const e = await failure(server, `def main():\n    return ${text}.x()\n`);
        assert.equal(e.code, "invalid_program");
        assert.match(e.detail!, new RegExp(`undefined: ${text} \\(hint: did you mean ${root}\\?\\)$`));
        roots++;
      }
      // The disabled capability, called by its exact name or a typo of it: no hint names it.
      for (const text of [hidden, `${hidden.split(".")[0]}.${typo(hidden.split(".")[1], next).text}`]) {
        if (enabled.includes(text)) continue;
        const e = await failure(server, `def main():\n    return ${text}()\n`);
        assert.ok(!e.detail!.includes(hidden), `${hidden} suggested: ${e.detail}`);
        assert.equal(e.code, "invalid_program");
        members++;
      }
      // A member nothing is near: the namespace's capabilities are listed instead.
      const root = enabledRoots[0];
      const e = await failure(server, `def main():\n    return ${root}.delete_everything()\n`);
      const inside = enabled.filter((n) => n.startsWith(`${root}.`)).sort();
      assert.match(e.detail!, /module has no \.delete_everything field or method \(hint: /);
      assert.ok(e.detail!.includes(`${root} has ${inside.join(", ")}`), e.detail);
    } finally {
      await server.close();
    }
  }
  assert.ok(roots >= 10 && members >= 6, `${roots} ${members}`);
});

Deno.test("execute: words in another order name the capability (tickets.ticket_open → tickets.open_ticket)", async () => {
  const builder = new Builder({ authorizer: allowAll(), executor: "inline" });
  for (const name of ["tickets.open_ticket", "tickets.close"]) {
    builder.register({
      id: name,
      name,
      summary: `The ${name}`,
      input: t.struct({ query: t.str() }),
      output: t.struct({ ok: t.bool() }),
      handler: () => ({ ok: true }),
    });
  }
  const server = await builder.build();
  try {
    const e = await failure(server, 'def main():\n    return tickets.ticket_open(query="x")\n');
    assert.match(
      e.detail!,
      /has no \.ticket_open field or method \(hint: did you mean tickets\.open_ticket\? tickets has tickets\.close, tickets\.open_ticket\)$/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("execute: the suggestions are the same in the worker and process sandboxes", async () => {
  for (const executor of ["worker", "process"] as const) {
    const builder = new Builder({ authorizer: allowAll(), executor });
    builder.register({
      name: "crm.customer",
      summary: "One customer",
      input: t.struct({ id: t.str() }),
      output: t.struct({ id: t.str() }),
      handler: ({ id }) => ({ id }),
    });
    const server = await builder.build();
    try {
      const keyword = await failure(server, 'def main():\n    return crm.customer(customer_id="c-1")\n');
      assert.equal(
        keyword.detail,
        'crm.customer: unexpected keyword argument "customer_id" (did you mean id?); accepted keyword arguments: id',
        executor,
      );
      const root = await failure(server, 'def main():\n    return crn.customer(id="c-1")\n');
      assert.match(root.detail!, /undefined: crn \(hint: did you mean crm\?\)$/, executor);
      const member = await failure(server, "def main():\n    return crm.delete_all()\n");
      assert.match(
        member.detail!,
        /has no \.delete_all field or method \(hint: crm has crm\.customer;/,
        executor,
      );
    } finally {
      await server.close();
    }
  }
});
