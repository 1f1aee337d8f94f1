/**
 * Micro-benchmarks of dict and set tables by key kind (`deno bench -A bench/dict_keys_bench.ts`): building
 * and probing tables of ordinary int and string keys (the common case, which table keys must not slow
 * down), and of big ints sharing their low 64 bits (which V8 would hash alike without table keys).
 *
 * @module
 */
import { call, execFile, List, Thread, type Value } from "../src/starlark/mod.ts";

const PROGRAM = `
def main(keys):
    d = {}
    for k in keys:
        d[k] = 1
    n = 0
    for r in range(3):
        for k in keys:
            n += d[k]
        n += len(dict(d))
    s = set(keys)
    for k in keys:
        n += int(k in s)
    return n
`;

function bench(name: string, keys: Value[]): void {
  Deno.bench(name, () => {
    const thread = new Thread({ dialect: { set: true } });
    const { globals } = execFile(PROGRAM, { thread });
    call(thread, globals.get("main")!, [new List(keys)], []);
  });
}

const N = 20_000;
bench("dict/set of 20,000 small int keys", Array.from({ length: N }, (_, i) => i * 7));
bench("dict/set of 20,000 string keys", Array.from({ length: N }, (_, i) => `key${i}_${i % 97}`));
bench(
  "dict/set of 20,000 big int keys sharing their low 64 bits",
  Array.from({ length: N }, (_, i) => BigInt(i + 1) << 64n),
);
