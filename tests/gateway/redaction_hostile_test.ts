/**
 * Redaction against a hostile downstream (a real stdio MCP process, `fixtures/leaky_stdio_server.ts`)
 * that puts its secrets in its tool metadata, splits them across answers for a program to join, and
 * JSON-encodes them several times over: no form of a secret reaches the client, through `tools/list`,
 * `search_api`, `describe_api`, a passthrough result or anything a code-mode execution sends back —
 * its value or its error text, whatever construct made the error quote the secret.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { REDACTED } from "../../src/gateway/redact/mod.ts";
import { isCodeModeError } from "../../src/errors.ts";
import { text } from "./_helpers.ts";
import { assertNoLeak, NAME_SECRET, startLeakyGateway } from "./fixtures/leaky_gateway.ts";

/** Starts the gateway; `logs` collects its operator log. */
function start(logs: string[]) {
  return startLeakyGateway((l) => logs.push(l));
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return await client.callTool({ name, arguments: args });
}

/** Error constructs that quote their operand `X` in the error text. */
const CONSTRUCTS: readonly string[] = [
  "fail(X)",
  'fail("got", X, "end")',
  "int(X)",
  "float(X)",
  "{}[X]",
  '{"k": 1}[X]',
  'getattr("x", X)',
  '("{" + X + "}").format()',
  '("%(" + X + ")s") % {}',
  "leaky.split(**{X: 1})",
  'fail("%s" % X)',
  'fail("{}".format(X))',
];
/** Ways the assembled secret `s` is dressed before the construct quotes it. */
const OPERANDS: readonly string[] = [
  "s",
  '"<" + s + ">"',
  "s[:5] + s[5:]",
  "repr(s)",
  "str([s])",
  "json.encode(s)",
  "json.encode(json.encode(s))",
  "json.encode({s: [s]})",
];

const ASSEMBLE = '    s = leaky.split(index=0)["piece"] + leaky.split(index=1)["piece"] + ' +
  'leaky.split(index=2)["piece"]\n';

Deno.test("redaction holds against a hostile stdio downstream", async (t) => {
  const logs: string[] = [];
  const { dir, gateway, client } = await start(logs);
  try {
    await t.step(
      "tools/list: no metadata field carries a secret; a tool named after one is not offered",
      async () => {
        const { tools } = await client.listTools();
        assertNoLeak("tools/list", tools);
        assert.deepEqual(
          tools.map((x) => x.name).sort(),
          ["describe_api", "execute", "leaky__deep", "leaky__encoded", "leaky__split", "search_api"],
        );
        const split = tools.find((x) => x.name === "leaky__split")!;
        const props = split.inputSchema.properties as Record<string, Record<string, unknown>>;
        // Every field was redacted where the secret stood, and the rest of it kept.
        assert.equal(split.title, `Split ${REDACTED}`);
        assert.equal(split.description, `Returns one piece of the secret. Example token: ${REDACTED}.`);
        assert.equal(props.index.description, `which piece of ${REDACTED}`);
        assert.deepEqual(props.mode.enum, ["plain", REDACTED]);
        assert.equal(props.mode.default, REDACTED);
        assert.ok(REDACTED in props, "a property named after a secret is renamed");
        assert.equal(props.parts.default, 3);
        const out = split.outputSchema!.properties as Record<string, Record<string, unknown>>;
        // Written twice JSON-encoded: only the secret goes; the escaped quotes around it stay.
        assert.equal(out.piece.description, `a piece of ${JSON.stringify(JSON.stringify(REDACTED))}`);
        assert.equal(split.annotations?.title, `annotated ${REDACTED}`);
        assert.equal(split.annotations?.readOnlyHint, true);
        assert.deepEqual((split as { icons?: unknown }).icons, [
          { src: `https://icons.example/${REDACTED}.png`, mimeType: "image/png" },
        ]);
        const encoded = tools.find((x) => x.name === "leaky__encoded")!;
        assert.ok(encoded.description!.includes(REDACTED), encoded.description);
        // Why the tool is missing is logged, without the secret.
        assert.ok(logs.some((l) => /left out: its name contains a secret/.test(l)), logs.join("\n"));
        assertNoLeak("operator log", logs);
        // Calling it by its name is answered exactly like calling a tool that does not exist.
        const refusal = (name: string) =>
          call(client, name, {}).then(
            (r) => ({ answered: r }),
            (e: { code?: number; message?: string }) => ({ code: e.code, message: e.message }),
          );
        const hidden = await refusal(`leaky__t_${NAME_SECRET}`);
        assert.deepEqual(hidden, { code: -32602, message: "MCP error -32602: unknown tool" });
        assert.deepEqual(hidden, await refusal("leaky__t_nosuchtool0000"));
      },
    );

    await t.step("search_api and describe_api: no signature, summary or type carries a secret", async () => {
      const names = new Set<string>(["leaky.split", "leaky.encoded", "leaky.deep"]);
      for (const query of ["split piece secret", "encoded", "secret token", "leaky", "annotated"]) {
        const r = await call(client, "search_api", { query });
        assert.notEqual(r.isError, true, text(r));
        assertNoLeak(`search_api ${query}`, r);
        const structured = r.structuredContent as { results: { name: string }[] };
        for (const x of structured.results) names.add(x.name);
      }
      for (const name of names) {
        const d = await call(client, "describe_api", { name });
        assert.notEqual(d.isError, true, `${name}: ${text(d)}`);
        assertNoLeak(`describe_api ${name}`, d);
      }
      const split = (await call(client, "describe_api", { name: "leaky.split" })).structuredContent as {
        description: string;
        signature: string;
      };
      assert.ok(split.description.includes(REDACTED), split.description);
      assert.match(split.signature, /^leaky\.split\(/);
    });

    await t.step(
      "execute: an error quoting a secret the program assembled is redacted (generated)",
      async () => {
        // The control: returning the joined value was already redacted.
        const plain = await call(client, "execute", { source: `def main():\n${ASSEMBLE}    return s\n` });
        assert.deepEqual(plain.structuredContent, { result: REDACTED });
        let cases = 0;
        for (const construct of CONSTRUCTS) {
          for (const operand of OPERANDS) {
            const expr = construct.replace("X", operand);
            const source = `def main():\n${ASSEMBLE}    return ${expr}\n`;
            const r = await call(client, "execute", { source });
            // Most end in an error (a format string made of JSON braces may format fine): either way.
            assertNoLeak(expr, r);
            // The answer did quote the secret: the redactor replaced it rather than the text omitting it.
            assert.ok(text(r).includes(REDACTED), `${expr}: ${text(r)}`);
            cases++;
          }
        }
        assert.equal(cases, CONSTRUCTS.length * OPERANDS.length);
      },
    );

    await t.step(
      "execute through the library entry: the rejection's message and detail are redacted",
      async () => {
        for (const construct of CONSTRUCTS.slice(0, 4)) {
          const source = `def main():\n${ASSEMBLE}    return ${construct.replace("X", "s")}\n`;
          const err = await gateway.execute("alice", source).then(() => undefined, (e) => e);
          assert.ok(isCodeModeError(err), String(err));
          assertNoLeak(construct, { message: err.message, detail: err.detail });
          assert.ok(`${err.message} ${err.detail}`.includes(REDACTED), err.message);
        }
      },
    );

    await t.step("a secret JSON-encoded 1 to 6 times is found, in passthrough and in code mode", async () => {
      for (let layers = 1; layers <= 6; layers++) {
        const r = await call(client, "leaky__encoded", { layers });
        assert.notEqual(r.isError, true, text(r));
        assertNoLeak(`passthrough, ${layers} layers`, r);
        assert.ok(text(r).includes(REDACTED), `${layers} layers: ${text(r)}`);
        assert.ok(text(r).endsWith(`"note":"layers=${layers}"}`), "the rest of the text is kept");
        const e = await call(client, "execute", {
          source: `def main():\n    return leaky.encoded(layers=${layers})["text"]\n`,
        });
        assert.notEqual(e.isError, true, text(e));
        assertNoLeak(`code mode, ${layers} layers`, e);
      }
    });

    await t.step(
      "structured content nested deeper than the redactor walks is replaced, not passed",
      async () => {
        const depth = 700;
        const r = await call(client, "leaky__deep", { depth });
        assert.notEqual(r.isError, true, text(r));
        assertNoLeak("deep", r);
        let node: unknown = r.structuredContent;
        let level = 0;
        while (node !== null && typeof node === "object" && "d" in node) {
          node = (node as { d: unknown }).d;
          level++;
        }
        // Fail closed: the subtree below the guard became one [REDACTED] string, not a walked object.
        assert.equal(node, REDACTED, `level ${level}: ${JSON.stringify(node)}`);
        assert.ok(level < depth, `cut at ${level}`);
      },
    );
  } finally {
    await client.close();
    await gateway.close();
  }
  const audit = await Deno.readTextFile(`${dir}/audit.jsonl`);
  assertNoLeak("audit", audit);
  await Deno.remove(dir, { recursive: true });
});
