/**
 * The schema mapping over the real tool schemas of the npm reference servers: every tool of
 * server-everything, server-memory and server-filesystem becomes a capability (none is left out), its
 * description matches its mapped types, and calls through programs round-trip arguments and results.
 */
import assert from "node:assert/strict";
import { Gateway } from "../../src/gateway/gateway.ts";
import { identifierFor, mapInput, mapOutput } from "../../src/gateway/codemode/mod.ts";
import {
  connect,
  everythingDownstream,
  filesDownstream,
  loadConfig,
  memoryDownstream,
  prefetchServers,
  randomKey,
  START_TIMEOUT_MS,
  text,
} from "./_helpers.ts";

function configYaml(dir: string): string {
  return `
listen: 127.0.0.1:0
mode: codemode
codemode: { max_execution_time: 30000, max_concurrent_executions: 2 }
clients:
  - { id: tester, api_key_env: CMS_KEY }
downstreams:
${everythingDownstream()}
${memoryDownstream(dir)}
${filesDownstream(dir)}
policy:
  clients:
    tester: { allow: ["everything__*", "memory__*", "files__*"] }
audit: { sink: ${JSON.stringify(`file:${dir}/audit.jsonl`)} }
`;
}

// A 1×1 transparent PNG.
const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="),
  (c) => c.charCodeAt(0),
);

Deno.test("code mode maps every tool of the reference servers, and calls round-trip", async (t) => {
  await prefetchServers();
  const dir = await Deno.makeTempDir({ prefix: "gw-cms-" });
  await Deno.mkdir(`${dir}/files`);
  await Deno.writeFile(`${dir}/files/dot.png`, PNG);
  const env = { CMS_KEY: randomKey() };
  const logs: string[] = [];
  const gateway = await Gateway.create(await loadConfig(dir, configYaml(dir), env), {
    startTimeoutMs: START_TIMEOUT_MS,
    log: (l) => logs.push(l),
  });
  const { url } = await gateway.serve();
  const client = await connect(url, env.CMS_KEY);
  const execute = async (source: string) => {
    const r = await client.callTool({ name: "execute", arguments: { source } });
    assert.equal(r.isError, undefined, text(r));
    return (r.structuredContent as { result: unknown }).result as Record<string, unknown>;
  };
  const root = `${dir}/files`;
  try {
    await t.step("every tool maps and is described with its mapped types", async () => {
      const tools = gateway.listTools("tester").tools;
      assert.ok(tools.length >= 30, `${tools.length} tools`);
      for (const d of ["everything", "memory", "files"]) {
        assert.ok(tools.some((x) => x.ref.downstream === d), d);
      }
      for (const tool of tools) {
        const input = mapInput(tool.inputSchema);
        assert.ok(typeof input !== "string", `${tool.name}: ${input}`);
        const name = `${identifierFor(tool.ref.downstream)}.${identifierFor(tool.ref.tool)}`;
        const r = await client.callTool({ name: "describe_api", arguments: { name } });
        assert.equal(r.isError, undefined, `${name}: ${text(r)}`);
        const d = r.structuredContent as { input: { name: string }[]; output: { name: string }[] };
        assert.deepEqual(d.input.map((f) => f.name), input.type.fields.map((f) => f.name), name);
        const out = mapOutput(tool.outputSchema);
        const expected = out === undefined
          ? ["text", "content", "structured"]
          : (out.type as unknown as { fields: { name: string }[] }).fields.map((f) => f.name);
        assert.deepEqual(d.output.map((f) => f.name), expected, name);
      }
      assert.deepEqual(logs.filter((l) => l.includes("left out")), []);
    });

    await t.step("server-everything: scalars, floats, enums, structured and generic results", async () => {
      const out = await execute(`
def main():
    return {
        "echo": everything.echo(message="héllo")["text"],
        "sum": everything.get_sum(a=2, b=3.5)["text"],
        "weather": everything.get_structured_content(location="Chicago"),
        "note": everything.get_annotated_message(messageType="success", includeImage=False)["content"][0],
        "image": [c["type"] for c in everything.get_tiny_image()["content"]],
        "links": len([c for c in everything.get_resource_links(count=2)["content"] if c["type"] == "resource_link"]),
        "ref": everything.get_resource_reference(resourceType="Text", resourceId=1)["content"][1]["type"],
        "long": everything.trigger_long_running_operation(duration=0.2, steps=1)["text"],
    }
`);
      assert.equal(out.echo, "Echo: héllo");
      assert.equal(out.sum, "The sum of 2 and 3.5 is 5.5.");
      const weather = out.weather as Record<string, unknown>;
      assert.deepEqual(Object.keys(weather).sort(), ["conditions", "humidity", "temperature"]);
      assert.equal(typeof weather.temperature, "number");
      assert.equal((out.note as { type: string }).type, "text");
      assert.ok((out.image as string[]).includes("image"));
      assert.equal(out.links, 2);
      assert.equal(out.ref, "resource");
      assert.match(out.long as string, /completed/i);
    });

    await t.step("server-memory: nested entity structs in and out", async () => {
      const out = await execute(`
def main():
    made = memory.create_entities(entities=[
        {"name": "a", "entityType": "letter", "observations": ["first"]},
        {"name": "b", "entityType": "letter", "observations": []},
    ])
    # "from" is a Starlark keyword: the property is from_ in code mode (and back to "from" downstream).
    rel = memory.create_relations(relations=[{"from_": "a", "to": "b", "relationType": "precedes"}])
    obs = memory.add_observations(observations=[{"entityName": "b", "contents": ["second"]}])
    opened = memory.open_nodes(names=["a"])
    found = memory.search_nodes(query="second")
    memory.delete_observations(deletions=[{"entityName": "a", "observations": ["first"]}])
    memory.delete_relations(relations=[{"from_": "a", "to": "b", "relationType": "precedes"}])
    gone = memory.delete_entities(entityNames=["a"])
    graph = memory.read_graph()
    return {
        "made": [e["name"] for e in made["entities"]],
        "rel": rel["relations"][0],
        "obs": obs["results"],
        "opened": opened["entities"][0]["observations"],
        "found": [e["name"] for e in found["entities"]],
        "gone": gone["success"],
        "left": [(e["name"], e["observations"]) for e in graph["entities"]],
        "relations": graph["relations"],
    }
`);
      assert.deepEqual(out, {
        made: ["a", "b"],
        rel: { from_: "a", to: "b", relationType: "precedes" },
        obs: [{ entityName: "b", addedObservations: ["second"] }],
        opened: ["first"],
        found: ["b"],
        gone: true,
        left: [["b", ["second"]]],
        relations: [],
      });
    });

    await t.step("server-filesystem: paths, optional numbers, lists of structs, union results", async () => {
      const out = await execute(`
def main():
    root = ${JSON.stringify(root)}
    files.create_directory(path=root + "/sub")
    files.write_file(path=root + "/sub/a.txt", content="one\\ntwo\\nthree")
    diff = files.edit_file(path=root + "/sub/a.txt", edits=[{"oldText": "two", "newText": "2"}], dryRun=True)
    files.move_file(source=root + "/sub/a.txt", destination=root + "/sub/b.txt")
    media = files.read_media_file(path=root + "/dot.png")
    return {
        "head": files.read_text_file(path=root + "/sub/b.txt", head=1)["content"],
        "tail": files.read_file(path=root + "/sub/b.txt", tail=1)["content"],
        "diff": "+2" in diff["content"],
        "many": "three" in files.read_multiple_files(paths=[root + "/sub/b.txt"])["content"],
        "list": files.list_directory(path=root)["content"],
        "sizes": "dot.png" in files.list_directory_with_sizes(path=root, sortBy="size")["content"],
        "tree": json.decode(files.directory_tree(path=root, excludePatterns=[])["content"])[1]["name"],
        "search": "b.txt" in files.search_files(path=root, pattern="**/*.txt")["content"],
        "info": "size" in files.get_file_info(path=root + "/dot.png")["content"],
        "allowed": files.list_allowed_directories()["content"],
        "media": [(c["type"], c["mimeType"]) for c in media["content"]],
    }
`);
      assert.equal(out.head, "one");
      assert.equal(out.tail, "three");
      assert.equal(out.diff, true);
      assert.equal(out.many, true);
      assert.match(out.list as string, /\[FILE\] dot\.png/);
      assert.match(out.list as string, /\[DIR\] sub/);
      assert.equal(out.sizes, true);
      assert.equal(out.tree, "sub");
      assert.equal(out.search, true);
      assert.equal(out.info, true);
      assert.match(out.allowed as string, /gw-cms-/);
      assert.deepEqual(out.media, [["image", "image/png"]]);
    });
  } finally {
    await client.close();
    await gateway.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
