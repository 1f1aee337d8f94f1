/**
 * What a code-mode program prints crosses the gateway's redactor like its value and its errors (issue
 * 26): a program that assembles a downstream's secret and prints it, in any dressing, gets the output
 * back with the secret replaced — in `structuredContent.output`, its text mirror, the text of a failed
 * execution, and through the library entry (`Gateway.execute` and its `CodeModeError.output`).
 */
import assert from "node:assert/strict";
import { REDACTED } from "../../src/gateway/redact/mod.ts";
import { isCodeModeError } from "../../src/errors.ts";
import { text } from "./_helpers.ts";
import { assertNoLeak, startLeakyGateway } from "./fixtures/leaky_gateway.ts";

const ASSEMBLE = '    s = leaky.split(index=0)["piece"] + leaky.split(index=1)["piece"] + ' +
  'leaky.split(index=2)["piece"]\n';

/** Ways a program prints the secret `s`. */
const PRINTS: readonly string[] = [
  "print(s)",
  'print("token:", s, "end")',
  'print("<" + s + ">")',
  "print(repr(s))",
  "print(json.encode({s: [s]}))",
  'print(s, sep = "|")',
];

Deno.test("printed output is redacted on the gateway", async (t) => {
  const { dir, gateway, client } = await startLeakyGateway();
  try {
    await t.step("a successful execution: structuredContent.output and the text mirror", async () => {
      for (const p of PRINTS) {
        const r = await client.callTool({
          name: "execute",
          arguments: { source: `def main():\n${ASSEMBLE}    ${p}\n    print("done")\n    return 1\n` },
        });
        assert.notEqual(r.isError, true, text(r));
        const sc = r.structuredContent as { result: unknown; output: string };
        assert.equal(sc.result, 1);
        assertNoLeak(p, r);
        assert.ok(sc.output.includes(REDACTED), `${p}: ${sc.output}`);
        assert.ok(sc.output.endsWith("done\n"), sc.output);
        assert.deepEqual(JSON.parse(text(r)), sc);
      }
    });

    await t.step("a failed execution: the error text carries the redacted output", async () => {
      for (const p of PRINTS) {
        const r = await client.callTool({
          name: "execute",
          arguments: { source: `def main():\n${ASSEMBLE}    ${p}\n    fail("stop")\n` },
        });
        assert.equal(r.isError, true);
        assertNoLeak(p, r);
        assert.match(text(r), /^program failed: stop \(main\.star:\d+:\d+ in main\)\n\nprinted output:\n/);
        assert.ok(text(r).includes(REDACTED), text(r));
      }
    });

    await t.step("the library entry: the value's output and the error's output are redacted", async () => {
      const ok = await gateway.execute("alice", `def main():\n${ASSEMBLE}    print(s)\n    return 1\n`);
      assert.equal(ok.value, 1);
      assertNoLeak("library output", ok.output);
      assert.ok(ok.output?.includes(REDACTED), ok.output);
      const err = await gateway.execute("alice", `def main():\n${ASSEMBLE}    print(s)\n    return 1 // 0\n`)
        .then(() => undefined, (e) => e);
      assert.ok(isCodeModeError(err), String(err));
      assertNoLeak("library error output", err.output);
      assert.ok(err.output?.includes(REDACTED), err.output);
    });
  } finally {
    await client.close();
    await gateway.close();
    await Deno.remove(dir, { recursive: true });
  }
});
