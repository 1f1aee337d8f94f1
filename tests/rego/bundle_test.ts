/**
 * OPA bundles: the gzip + tar reader (ustar, pax, GNU long names, malformed archives, size cap) and
 * bundles with data, both from `opa build` and assembled by hand.
 */
import assert from "node:assert/strict";
import { loadRegoAuthorizer, RegoLoadError } from "../../src/authz/rego/mod.ts";
import { readBundle } from "../../src/authz/rego/bundle.ts";
import { gunzip, readTar } from "../../src/authz/rego/tar.ts";
import { DeniedError } from "../../authz.ts";
import { call, compile, CTX, opaTest, thrown } from "./_helpers.ts";

const enc = new TextEncoder();

interface Entry {
  name: string;
  data?: string | Uint8Array;
  type?: string;
  prefix?: string;
  base256Size?: boolean;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function header(e: Entry, size: number): Uint8Array {
  const h = new Uint8Array(512);
  const put = (at: number, s: string) => h.set(enc.encode(s), at);
  put(0, e.name);
  put(100, "0000644\0");
  put(108, "0000000\0");
  put(116, "0000000\0");
  if (e.base256Size) {
    h[124] = 0x80;
    for (let i = 0, n = size; i < 11; i++, n = Math.floor(n / 256)) h[135 - i] = n % 256;
  } else put(124, octal(size, 12));
  put(136, octal(0, 12));
  put(156, e.type ?? "0");
  put(257, "ustar\x0000");
  if (e.prefix) put(345, e.prefix);
  put(148, "        ");
  const sum = h.reduce((a, b) => a + b, 0);
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** A tar archive written the way the ustar spec says (plus the GNU/pax variants the reader handles). */
function tar(entries: Entry[], end = true): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const data = typeof e.data === "string" ? enc.encode(e.data) : e.data ?? new Uint8Array();
    parts.push(header(e, data.length), data, new Uint8Array((512 - data.length % 512) % 512));
  }
  if (end) parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function pax(records: Record<string, string>): string {
  let out = "";
  for (const [k, v] of Object.entries(records)) {
    const body = ` ${k}=${v}\n`;
    let len = body.length + 1;
    while (String(len).length + body.length !== len) len = String(len).length + body.length;
    out += `${len}${body}`;
  }
  return out;
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

function bundleError(err: unknown, message: RegExp): void {
  assert.ok(err instanceof RegoLoadError, `expected RegoLoadError, got ${err}`);
  assert.equal(err.kind, "bundle");
  assert.match(err.message, message);
}

Deno.test("tar: ustar prefix, pax path and size, GNU long names; non-files skipped", () => {
  const long = "d/".repeat(80) + "file.json";
  const files = readTar(tar([
    { name: "dir/", type: "5" },
    { name: "/a.txt", data: "A" },
    { name: "b.txt", prefix: "./nested/deeper", data: "B" },
    { name: "", type: "x", data: pax({ path: "pax/named.json", size: "2" }) },
    { name: "ignored-name", data: "PX" },
    { name: "././@LongLink", type: "L", data: long + "\0" },
    { name: "truncated-name", data: "L" },
    { name: "link", type: "2" },
    { name: "", type: "g", data: pax({ comment: "global" }) },
    { name: "big", data: "0123456789", base256Size: true },
    { name: "empty.json" },
  ]));
  assert.deepEqual(files.map((f) => [f.name, text(f.data)]), [
    ["a.txt", "A"],
    ["nested/deeper/b.txt", "B"],
    ["pax/named.json", "PX"],
    [long, "L"],
    ["big", "0123456789"],
    ["empty.json", ""],
  ]);
  // Archives without the two terminating zero blocks still read.
  assert.equal(readTar(tar([{ name: "x", data: "1" }], false)).length, 1);
});

Deno.test("tar: malformed archives are rejected", () => {
  const good = tar([{ name: "a", data: "hello" }]);
  const corrupt = good.slice();
  corrupt[0] ^= 1;
  const cases: [Uint8Array, RegExp][] = [
    [corrupt, /checksum mismatch/],
    [good.slice(0, 300), /truncated archive/],
    [good.slice(0, 514), /truncated file data/],
    [tar([{ name: "../escape", data: "x" }]), /escapes the bundle root/],
    [tar([{ name: "a", data: "1" }, { name: "./a", data: "2" }]), /duplicate file "a"/],
    [tar([{ name: "", type: "x", data: "bogus" }, { name: "a" }]), /malformed pax/],
    [tar([{ name: "/" }]), /empty name/],
  ];
  for (const [archive, message] of cases) {
    const err = (() => {
      try {
        readTar(archive);
      } catch (e) {
        return e;
      }
    })();
    bundleError(err, message);
  }
});

Deno.test("gzip: invalid streams and the decompressed size cap are rejected", async () => {
  bundleError(
    await thrown(() => gunzip(new Uint8Array([0x1f, 0x8b, 1, 2, 3]), 1000)),
    /not a valid gzip stream/,
  );
  const zeros = await gzip(new Uint8Array(1_000_000));
  assert.ok(zeros.length < 5000, "a small archive that expands a lot");
  assert.equal((await gunzip(zeros, 1_000_000)).length, 1_000_000);
  bundleError(await thrown(() => gunzip(zeros, 999_999)), /larger than 999999 bytes when decompressed/);
  // Through the loader option too.
  const err = await thrown(() =>
    loadRegoAuthorizer(zeros, { decision: "data.codemode.authz.allow", maxBundleBytes: 4096 })
  );
  bundleError(err, /maxBundleBytes/);
});

Deno.test("bundle: structure checks (module, manifest, data files)", async () => {
  const wasm = "\0asm";
  bundleError(
    await thrown(async () => readBundle(await gzip(tar([{ name: "data.json", data: "{}" }])), 1e6)),
    /no policy\.wasm/,
  );
  bundleError(
    await thrown(async () =>
      readBundle(
        await gzip(tar([{ name: "policy.wasm", data: wasm }, { name: "data.json", data: "[1]" }])),
        1e6,
      )
    ),
    /root must hold a JSON object/,
  );
  bundleError(
    await thrown(async () =>
      readBundle(
        await gzip(tar([{ name: "policy.wasm", data: wasm }, { name: "x/data.json", data: "{" }])),
        1e6,
      )
    ),
    /x\/data\.json is not valid JSON/,
  );
  bundleError(
    await thrown(async () =>
      readBundle(
        await gzip(tar([{ name: "policy.wasm", data: wasm }, { name: "a/data.yaml", data: "a: 1" }])),
        1e6,
      )
    ),
    /YAML data files are not supported/,
  );
  bundleError(
    await thrown(async () =>
      readBundle(
        await gzip(tar([
          { name: "policy.wasm", data: wasm },
          { name: "data.json", data: '{"a": {"b": 1}}' },
          { name: "a/b/data.json", data: '{"c": 2}' },
        ])),
        1e6,
      )
    ),
    /a\/b\/data\.json conflicts with data at a\.b/,
  );
  const manifest = JSON.stringify({
    wasm: [{ entrypoint: "a/b", module: "/x.wasm" }, { entrypoint: "c", module: "/y.wasm" }],
  });
  bundleError(
    await thrown(async () =>
      readBundle(
        await gzip(tar([{ name: ".manifest", data: manifest }, { name: "x.wasm", data: wasm }])),
        1e6,
      )
    ),
    /several wasm modules/,
  );
  // The manifest names the module; data files merge by directory, deepest last.
  const one = JSON.stringify({ wasm: [{ entrypoint: "a/b", module: "/custom/module.wasm" }] });
  const b = await readBundle(
    await gzip(tar([
      { name: ".manifest", data: one },
      { name: "custom/module.wasm", data: wasm },
      { name: "roles/admins/data.json", data: '["alice"]' },
      { name: "data.json", data: '{"roles": {"readers": ["bob"]}, "n": 1}' },
      { name: "policy.rego", data: "package ignored" },
    ])),
    1e6,
  );
  assert.equal(text(b.wasm), wasm);
  assert.deepEqual(b.data, { roles: { readers: ["bob"], admins: ["alice"] }, n: 1 });
});

const ACL_POLICY = `package codemode.authz

default allow := false

allow if {
	some role in data.acl.subjects[input.subject.id]
	input.capability.id in data.acl.grants[role]
	input.arguments.amount <= data.limits.max_amount
}
`;

opaTest("bundle: opa build bundles carry their data (root and nested data.json)", async (opa) => {
  const { bundle } = await compile(opa, { "acl.rego": ACL_POLICY }, ["codemode/authz/allow"], {
    files: {
      "acl/data.json": JSON.stringify({
        subjects: { alice: ["payer"], bob: ["viewer"] },
        grants: { payer: ["billing.invoice.pay"], viewer: ["billing.invoice.list"] },
      }),
      "data.json": JSON.stringify({ limits: { max_amount: 100 } }),
    },
  });
  const a = await loadRegoAuthorizer(bundle, { decision: "data.codemode.authz.allow" });
  await a.authorize(call("alice", "billing.invoice.pay", { amount: 100 }), CTX);
  await a.authorize(call("bob", "billing.invoice.list", { amount: 1 }), CTX);
  for (
    const denied of [
      call("alice", "billing.invoice.pay", { amount: 101 }),
      call("bob", "billing.invoice.pay", { amount: 1 }),
      call("carol", "billing.invoice.list", { amount: 1 }),
    ]
  ) assert.ok(await thrown(() => a.authorize(denied, CTX)) instanceof DeniedError);

  // The same module without the bundle's data denies everything: the data really comes from the bundle.
  const { wasm } = await compile(opa, { "acl.rego": ACL_POLICY }, ["codemode/authz/allow"]);
  const bare = await loadRegoAuthorizer(wasm, { decision: "data.codemode.authz.allow" });
  assert.ok(
    await thrown(() => bare.authorize(call("alice", "billing.invoice.pay", { amount: 1 }), CTX)) instanceof
      DeniedError,
  );

  // A hand-assembled bundle (no manifest) with the same module and data behaves the same.
  const handmade = await gzip(tar([
    { name: "policy.wasm", data: wasm },
    {
      name: "acl/data.json",
      data: JSON.stringify({ subjects: { alice: ["payer"] }, grants: { payer: ["billing.invoice.pay"] } }),
    },
    { name: "limits/data.json", data: JSON.stringify({ max_amount: 5 }) },
  ]));
  const h = await loadRegoAuthorizer(handmade, { decision: "data.codemode.authz.allow" });
  await h.authorize(call("alice", "billing.invoice.pay", { amount: 5 }), CTX);
  assert.ok(
    await thrown(() => h.authorize(call("alice", "billing.invoice.pay", { amount: 6 }), CTX)) instanceof
      DeniedError,
  );
});
