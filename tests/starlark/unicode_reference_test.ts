/**
 * Every code point against the reference: case mappings, `is*` classes and `repr` quoting, identifier
 * scanning and the scanner's quoting of a refused character. The engine's tables are generated from Go's
 * `unicode` package (src/starlark/unicode/gen); the JS runtime's own Unicode data is newer and differs on
 * thousands of code points, which these tests would catch. They need the reference binary on PATH, so
 * they run with `STARLARK_REF=1`; the table checks at the end run everywhere.
 *
 * @module
 */
import assert from "node:assert/strict";
import { execFile } from "../../src/starlark/mod.ts";
import { toJSString } from "../../src/starlark/values/value.ts";
import {
  isLetterRune,
  isPrintRune,
  toLowerRune,
  toTitleRune,
  toUpperRune,
  UNICODE_VERSION,
} from "../../src/starlark/unicode/mod.ts";
import { runOurs, runReference } from "./golden/run.ts";

const needsReference = Deno.env.get("STARLARK_REF") !== "1";

// One line per run of code points with the same signature: the case mappings as offsets, the seven
// `is*` answers and how much longer `repr` is than the character (0 when shown literally).
const DUMP = `
def sig(c):
    s = chr(c)
    flags = [s.isalpha(), s.isdigit(), s.isalnum(), s.isupper(), s.islower(), s.istitle(), s.isspace()]
    return "%d %d %d %d %s %d" % (
        ord(s.upper()) - c, ord(s.lower()) - c, ord(s.title()) - c, ord(s.capitalize()) - c,
        "".join(["1" if f else "0" for f in flags]), len(repr(s)) - len(s))

def dump(lo, hi):
    out = []
    prev = None
    for c in range(lo, hi):
        k = sig(c)
        if k != prev:
            out.append("%x %s" % (c, k))
            prev = k
    print("\\n".join(out))
`;

const decoder = new TextDecoder();

/** Runs a program file with the reference command and returns what it printed. */
async function reference(source: string): Promise<string> {
  const file = await Deno.makeTempFile({ suffix: ".star" });
  try {
    await Deno.writeTextFile(file, source);
    const out = await new Deno.Command("starlark", { args: [file], stdout: "piped", stderr: "piped" })
      .output();
    return (decoder.decode(out.stdout) + decoder.decode(out.stderr)).replaceAll(file, "prog.star");
  } finally {
    await Deno.remove(file);
  }
}

/** Runs a program in our engine without budgets and returns what it printed. */
function ours(source: string): string {
  let out = "";
  try {
    execFile(source, {
      filename: "prog.star",
      print: (_t, msg) => {
        out += toJSString(msg) + "\n";
      },
    });
  } catch (e) {
    out += String((e as Error).message) + "\n";
  }
  return out;
}

Deno.test({
  name: "unicode: case mappings, is* and repr match the reference on every code point",
  ignore: needsReference,
  async fn() {
    // Four slices so that neither side holds one huge output and a difference points at a region.
    const cuts = [0, 0x3000, 0x20000, 0x40000, 0x110000];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const source = `${DUMP}\ndump(${cuts[i]}, ${cuts[i + 1]})\n`;
      const want = await reference(source);
      assert.ok(want.split("\n").length > 2, `the reference ran: ${want.slice(0, 200)}`);
      const got = ours(source);
      if (got !== want) {
        const a = got.split("\n"), b = want.split("\n");
        const k = a.findIndex((line, j) => line !== b[j]);
        assert.fail(
          `slice ${cuts[i].toString(16)}: first difference at line ${k}: ours ${a[k]}, reference ${b[k]}`,
        );
      }
    }
  },
});

Deno.test({
  name: "unicode: every letter the engine accepts in a name, the reference accepts",
  ignore: needsReference,
  async fn() {
    const lines: string[] = [];
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c < 0xe000) continue;
      // The letter starts one name and continues another, so both scanner paths see every letter.
      if (isLetterRune(c)) lines.push(`${String.fromCodePoint(c)} = 1`, `x${String.fromCodePoint(c)} = 2`);
    }
    assert.ok(lines.length > 200_000, `${lines.length / 2} letters`);
    lines.push(`print("accepted", ${lines.length})`);
    const source = lines.join("\n") + "\n";
    const want = await reference(source);
    assert.equal(want, `accepted ${lines.length - 1}\n`);
    assert.equal(ours(source), want);
  },
});

Deno.test({
  name:
    "unicode: characters the runtime calls letters but Go does not are refused, quoted like the reference",
  ignore: needsReference,
  async fn() {
    // Letters of the JS runtime's newer Unicode that Go's tables do not have, and unassigned or
    // non-letter code points quoted both ways (literally and escaped) in the error.
    const newer: number[] = [];
    const jsLetter = /^\p{L}$/u;
    for (let c = 0x80; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c < 0xe000) continue;
      if (!isLetterRune(c) && jsLetter.test(String.fromCodePoint(c))) newer.push(c);
    }
    assert.ok(newer.includes(0x1c89), "U+1C89 is a letter only in the runtime's Unicode");
    const picks = [0x1c89, ...newer.filter((_, i) => i % 40 === 0)];
    for (const c of [0x897, 0x2427, 0x1fa89, 0xa1, 0x2603, 0x1f600, 0xe000, 0x10ffff, 0x0e3f, 0x2028]) {
      picks.push(c);
    }
    const sources = picks.map((c) => `x${String.fromCodePoint(c)} = 1`);
    let checked = 0;
    for (const source of sources) {
      const want = await runReference(source);
      if (want === undefined) continue;
      checked++;
      assert.equal(runOurs(source), want, `for ${JSON.stringify(source)}`);
    }
    assert.ok(checked === sources.length, `${checked} of ${sources.length} ran`);
  },
});

Deno.test("unicode: the tables are Go's Unicode 15.0 and map the known differences from the runtime's", () => {
  assert.equal(UNICODE_VERSION, "15.0.0");
  // U+1C89/U+1C8A (CYRILLIC TJE) and U+A7CB.. were added in Unicode 16: no case mapping in Go 15.0.
  assert.equal(toLowerRune(0x1c89), 0x1c89);
  assert.equal(toUpperRune(0x1c8a), 0x1c8a);
  assert.equal(isLetterRune(0x1c89), false);
  assert.equal(isPrintRune(0x1c89), false);
  // Go's simple mappings, where JS's full ones are several characters or differ.
  assert.equal(toUpperRune(0xdf), 0xdf); // ß has no single upper-case rune
  assert.equal(toUpperRune(0x1f80), 0x1f88);
  assert.equal(toTitleRune(0x1c6), 0x1c5);
  assert.equal(toLowerRune(0x130), 0x69);
  assert.equal(toTitleRune(0x10d0), 0x10d0);
  assert.equal(toUpperRune(0x10d0), 0x1c90);
  assert.equal(toUpperRune(0x101), 0x100); // an alternating upper/lower run
  assert.equal(toLowerRune(0x100), 0x101);
  assert.equal(isLetterRune(0x4e00), true);
  assert.equal(isPrintRune(0x200b), false);
});

Deno.test({
  name: "unicode: tables.ts is what the generator writes with the reference's Go release",
  ignore: needsReference,
  async fn() {
    const gen = new URL("../../src/starlark/unicode/gen/", import.meta.url);
    const goVersion = async (args: string[]) =>
      decoder.decode(
        (await new Deno.Command("go", { args, stdout: "piped", stderr: "piped" }).output()).stdout,
      );
    // The tables follow the Unicode version of the Go release that built the reference binary.
    const which = await new Deno.Command("sh", { args: ["-c", "command -v starlark"], stdout: "piped" })
      .output();
    const binary = decoder.decode(which.stdout).trim();
    const built = (await goVersion(["version", binary])).trim().split(" ").pop();
    const local = (await goVersion(["env", "GOVERSION"])).trim();
    assert.equal(local, built, "regenerate with the Go release the reference binary was built with");
    const out = await new Deno.Command("go", {
      args: ["run", "main.go"],
      cwd: gen,
      stdout: "piped",
      stderr: "piped",
      env: { GOFLAGS: "-mod=mod", GOPROXY: "off" },
    }).output();
    assert.ok(out.success, decoder.decode(out.stderr));
    const committed = await Deno.readTextFile(new URL("../tables.ts", gen));
    assert.equal(decoder.decode(out.stdout), committed);
  },
});
