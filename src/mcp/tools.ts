/**
 * The three tools: names, JSON Schemas, and the descriptions that teach a model the contract (search,
 * then describe, then one program with `def main():`).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Limits } from "../core/mod.ts";
import { TEMPLATE_EXAMPLES, type ToolExamples } from "./examples.ts";
import { type CatalogListing, listingSection } from "./catalog_listing.ts";

export { catalogExamples, type ExampleCapability, TEMPLATE_EXAMPLES, type ToolExamples } from "./examples.ts";

/** The tool names, in the order a model should use them. */
export const TOOL_NAMES = ["search_api", "describe_api", "execute"] as const;

/** One of the three tool names. */
export type ToolName = typeof TOOL_NAMES[number];

/** The single argument each tool takes. */
export const TOOL_ARGUMENT: Readonly<Record<ToolName, "query" | "name" | "source">> = Object.freeze({
  search_api: "query",
  describe_api: "name",
  execute: "source",
});

/** The fixed text of a call whose arguments do not match the tool's input schema. */
export const BAD_ARGUMENT_TEXTS: Readonly<Record<ToolName, string>> = Object.freeze({
  search_api: 'invalid tool arguments: search_api takes exactly {"query": string}',
  describe_api: 'invalid tool arguments: describe_api takes exactly {"name": string}',
  execute: 'invalid tool arguments: execute takes exactly {"source": string}',
});

/** The message of the JSON-RPC error answering a call to a tool that does not exist. */
export const UNKNOWN_TOOL_TEXT = "unknown tool; the tools are search_api, describe_api and execute";

type JsonSchema = Tool["inputSchema"];

function oneString(name: string, description: string): JsonSchema {
  return {
    type: "object",
    properties: { [name]: { type: "string", description } },
    required: [name],
    additionalProperties: false,
  };
}

const FIELD_SHAPE = {
  type: "object",
  properties: {
    name: { type: "string" },
    type: { type: "string", description: "Type notation, e.g. str, int | None, list[{id: str}]" },
    required: { type: "boolean" },
  },
  required: ["name", "type", "required"],
  additionalProperties: false,
};

const SEARCH_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    results: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string", description: "Exact dotted name to pass to describe_api and call" },
          signature: { type: "string", description: "Keyword-only call signature" },
          summary: { type: "string" },
        },
        required: ["name", "signature", "summary"],
        additionalProperties: false,
      },
    },
    truncated: { type: "boolean", description: "True when more capabilities matched than were returned" },
    hint: {
      type: "string",
      description: "Only when nothing matched: the catalog's top-level namespaces, to search again with",
    },
  },
  required: ["results", "truncated"],
  additionalProperties: false,
};

const DESCRIBE_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string" },
    signature: { type: "string" },
    summary: { type: "string" },
    description: { type: "string" },
    input: { type: "array", items: FIELD_SHAPE, description: "Keyword parameters, in order" },
    output: { type: "array", items: FIELD_SHAPE, description: "Fields of the dict the call returns" },
  },
  required: ["name", "signature", "summary", "description", "input", "output"],
  additionalProperties: false,
};

const EXECUTE_OUTPUT: JsonSchema = {
  type: "object",
  properties: {
    result: {
      description: "The value main() returned, as JSON (None is null, tuples and lists are arrays)",
    },
    output: {
      type: "string",
      description:
        'What the program printed (its last 8 KiB, after "[N bytes dropped]" when it printed more)',
    },
  },
  required: ["result"],
  additionalProperties: false,
};

/**
 * The examples of the demo catalog (`deno task serve`), curated with ids its data holds. Each is run
 * against the demo catalog by the tests (`tests/mcp/examples_test.ts`), so none can drift into a call
 * that fails: a search that finds something, a name that describes, and a program that returns a value.
 * Other hosts get examples drawn from their own catalog ({@link catalogExamples}).
 */
export const DEMO_EXAMPLES: ToolExamples = Object.freeze({
  searches: Object.freeze(["open orders", "customer orders"]),
  describe: "crm.customer",
  call: 'crm.customer(id="c-101")',
  program: `def main():
    orders = shop.orders.list(status="open")["orders"]
    return sorted([o["id"] for o in orders if o["total_eur"] > 100])`,
  template: false,
});

function searchDescription(examples: ToolExamples): string {
  const quoted = examples.searches.map((q) => `"${q}"`).join(" or ");
  return `Find the capabilities (functions) an execute program can call.
Pass a few words about the task or the data, e.g. ${quoted}. Each result \
gives the exact dotted name, the keyword-only call signature and a summary; "truncated" is true when \
more matched than were returned, so narrow the words. Matching is by whole words and word prefixes of 3+ \
letters, without synonyms: when nothing matches, the answer lists the catalog's top-level namespaces; \
search again with their words.
Next: describe_api on the names you need, then one execute program.`;
}

const DESCRIBE_DESCRIPTION = `Get the full contract of one capability before calling it: signature, \
description, input fields (keyword parameters with type and whether required) and output fields (the \
keys and types of the dict the call returns). Pass the exact dotted name from search_api \
(case-sensitive). Types use Starlark notation: str, int, float, bool, list[T], dict[str, T], \
{field: T, optional?: T}, and "T | None" for values that may be None.`;

function exampleHeading(examples: ToolExamples): string {
  return examples.template
    ? "Example (a template: this catalog has no capabilities yet; namespace.capability stands for a name " +
      "search_api finds):"
    : "Example:";
}

function formatLimit(n: number | undefined, unit: string): string | undefined {
  return typeof n === "number" && Number.isFinite(n) && n > 0
    ? `${n.toLocaleString("en-US")} ${unit}`
    : undefined;
}

function budgetsLine(limits: Partial<Limits> | undefined): string {
  const parts = [
    formatLimit(limits?.maxSourceBytes, "bytes of source"),
    formatLimit(limits?.maxExecutionTime, "ms"),
    formatLimit(limits?.maxExecutionSteps, "steps"),
    formatLimit(limits?.maxNativeCalls, "capability calls"),
  ].filter((p): p is string => p !== undefined);
  const known = parts.length > 0 ? ` (here: at most ${parts.join(", ")})` : "";
  return `- Hard budgets on source size, time, steps, capability calls, memory and value sizes${known}; \
exceeding one stops the program with "resource limit exceeded: " and the budget's name and value.`;
}

/**
 * The description of the `execute` tool, mentioning the service's budgets when they are known, with
 * `examples` drawn from the catalog it serves (default: {@link TEMPLATE_EXAMPLES}, said to be a template),
 * and the whole catalog before the example when it is small enough to be listed (`catalog`, see
 * `catalogListing`).
 */
export function executeDescription(
  limits?: Partial<Limits>,
  examples: ToolExamples = TEMPLATE_EXAMPLES,
  catalog?: CatalogListing,
): string {
  return `Run one Starlark program (a small deterministic dialect of Python) that calls capabilities \
and returns a JSON result. Compose many calls in one program: loop, filter, join and aggregate there, \
and return only what is needed.
Rules:
- Define def main(): with no parameters. Its return value is the result: None, bool, int, float, str, \
list, tuple or dict with string keys, nested. What print() prints comes back with the result or the error (its last 8 KiB).
- Call capabilities by their dotted name with keyword arguments only, exactly as describe_api shows: \
${examples.call}. Positional arguments fail. An int is accepted where a float is declared. A call returns a dict shaped like describe_api's \
output fields (read them with r["field"]). Capabilities can only be called while main() runs.
- Available: the Starlark builtins (len, range, enumerate, zip, sorted, reversed, min, max, any, all, \
str, int, float, bool, list, dict, tuple, hasattr, getattr, type, repr, fail), sum(iterable, start=0), \
json (json.encode, json.decode, json.indent), math (sqrt, floor, ceil, round, pow, log, pi, ...), for \
loops, if/elif/else, comprehensions, nested def and lambda, string methods, % and str.format.
- Not available: while loops, recursion, load() or import, try/except, classes, sets, for/if at top \
level, reassigning globals, and any file, network, clock or random access. Use fail("why") to stop with \
an error.
${budgetsLine(limits)}
Failures come back as one short text: "invalid program: ..." (fix the code), "program failed: ..." \
(your fail() ran), "invalid arguments: ..." \
(fix a call's keywords or types), "capability failed: <name>[: why]", "capability not found", \
"permission denied", "resource limit exceeded: <budget> ...".
${catalog === undefined ? "" : listingSection(catalog)}${exampleHeading(examples)}
${examples.program}`;
}

/** Options of {@link toolDefinitions}. */
export interface ToolDefinitionOptions {
  /** The service's limits, quoted in the execute description when known. */
  readonly limits?: Partial<Limits>;
  /** Replacement descriptions, for hosts that want to add domain guidance. */
  readonly descriptions?: Partial<Readonly<Record<ToolName, string>>>;
  /**
   * The examples the descriptions quote, drawn from the catalog served (see {@link catalogExamples});
   * default {@link TEMPLATE_EXAMPLES}.
   */
  readonly examples?: ToolExamples;
  /** The whole catalog, listed at the end of the execute description when it is small (`catalogListing`). */
  readonly catalog?: CatalogListing;
}

/** The `tools/list` entries of the three tools. */
export function toolDefinitions(options: ToolDefinitionOptions = {}): Tool[] {
  const d = options.descriptions ?? {};
  const examples = options.examples ?? TEMPLATE_EXAMPLES;
  return [
    {
      name: "search_api",
      title: "Search capabilities",
      description: d.search_api ?? searchDescription(examples),
      inputSchema: oneString(
        "query",
        `A few words about the task or the data, e.g. "${examples.searches[0]}"`,
      ),
      outputSchema: SEARCH_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    {
      name: "describe_api",
      title: "Describe a capability",
      description: d.describe_api ?? DESCRIBE_DESCRIPTION,
      inputSchema: oneString(
        "name",
        `Exact dotted capability name from search_api, e.g. "${examples.describe}"`,
      ),
      outputSchema: DESCRIBE_OUTPUT,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    {
      name: "execute",
      title: "Run a Starlark program",
      description: d.execute ?? executeDescription(options.limits, examples, options.catalog),
      inputSchema: oneString("source", "Starlark source that defines def main():"),
      outputSchema: EXECUTE_OUTPUT,
      // A program can call capabilities with side effects, so no read-only or idempotent hint.
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
  ];
}

/**
 * The single string argument of a call, or `undefined` when the arguments are not exactly
 * `{ [argument]: string }`.
 */
export function singleStringArgument(tool: ToolName, args: unknown): string | undefined {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  const key = TOOL_ARGUMENT[tool];
  const keys = Object.keys(args);
  if (keys.length !== 1 || keys[0] !== key) return undefined;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/** Whether `name` is one of the three tools. */
export function isToolName(name: unknown): name is ToolName {
  return typeof name === "string" && (TOOL_NAMES as readonly string[]).includes(name);
}
