/**
 * The three code-mode tools as a gateway client sees them: the MCP adapter's own definitions and texts
 * (`search_api`, `describe_api`, `execute`; one required string each), answered against the client's
 * {@link CodeModeService} server, with the adapter's fixed failure texts.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool as SdkTool } from "@modelcontextprotocol/sdk/types.js";
import {
  BAD_ARGUMENT_TEXTS,
  catalogExamples,
  catalogListing,
  cleanOutput,
  errorText,
  type ExampleCapability,
  executeDescription,
  isToolName,
  type ListedCapability,
  listingBudget,
  MAX_LISTED_CAPABILITIES,
  singleStringArgument,
  type ToolListing,
  toolListing,
  type ToolName,
  withOutput,
} from "../../../mcp.ts";
import { CodeModeError } from "../../errors.ts";
import { describeCapability, type Limits, type StructSchema } from "../../core/mod.ts";
import type { JsonObject, Tool } from "../domain/mod.ts";
import { setOwn } from "../../plain.ts";
import { clientCapabilities } from "./capabilities.ts";
import { mapInput } from "../../jsonschema/mod.ts";
import type { CodeModeService } from "./service.ts";

/**
 * What the gateway adds to `execute`'s description: where capabilities come from, and the `json`
 * notation the schema mapping uses for values it cannot type exactly.
 */
export const GATEWAY_NOTE = `
Here the capabilities are the gateway tools you may call, named downstream.tool (non-identifier \
characters become _, e.g. get-env → get_env). A type shown as json is any JSON value (None, bool, int, \
float, str, list, dict). A tool without an output schema returns {"text": str, "content": list[json], \
"structured": json}. Every call is authorized, redacted and audited like a direct tool call.`;

/**
 * The capabilities of `tools` (a client's catalog) as the descriptions' examples draw from them: the
 * names and types code mode gives them, with the tools' read-only and destructive hints.
 */
export function exampleCapabilities(tools: readonly Tool[]): ExampleCapability[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  // The definitions are only read for their names and types: their handlers are never called.
  const { definitions } = clientCapabilities(tools, () => Promise.reject(new Error("not callable")));
  return definitions.map((d) => {
    const tool = byName.get(d.id ?? "");
    const hints = tool?.annotations;
    const readOnly = hints?.readOnlyHint === true
      ? true
      : hints?.destructiveHint === true
      ? false
      : undefined;
    const values = tool === undefined ? undefined : knownValues(tool);
    return { name: d.name, input: d.input ?? EMPTY_INPUT, output: d.output, readOnly, values };
  });
}

/**
 * The values a tool's input schema states for its top-level parameters (an enum's first value, else
 * its default, else its first example), by their code-mode names: an example built from them is one the
 * downstream accepts.
 */
function knownValues(tool: Tool): Record<string, string | number | boolean> | undefined {
  const props = tool.inputSchema.properties;
  if (props === null || typeof props !== "object" || Array.isArray(props)) return undefined;
  const mapped = mapInput(tool.inputSchema);
  const rename = typeof mapped === "string" ? undefined : mapped.rename;
  const out: Record<string, string | number | boolean> = {};
  for (const [key, prop] of Object.entries(props)) {
    if (prop === null || typeof prop !== "object" || Array.isArray(prop)) continue;
    const candidates = [
      Array.isArray(prop.enum) ? prop.enum[0] : undefined,
      prop.default,
      Array.isArray(prop.examples) ? prop.examples[0] : undefined,
    ];
    const value = candidates.find((v) =>
      typeof v === "string" || typeof v === "number" || typeof v === "boolean"
    );
    if (value === undefined) continue;
    setOwn(out, rename?.keys?.get(key)?.name ?? key, value);
  }
  return out;
}

const EMPTY_INPUT = Object.freeze({ kind: "struct", fields: Object.freeze([]) }) as StructSchema;

/**
 * The capabilities of `tools` (a client's catalog) as the execute description lists them: code-mode
 * names, signatures, output fields and summaries. Empty past {@link MAX_LISTED_CAPABILITIES} tools, which
 * could not be listed anyway.
 */
export function listedCapabilities(tools: readonly Tool[]): ListedCapability[] {
  if (tools.length > MAX_LISTED_CAPABILITIES) return [];
  const { definitions } = clientCapabilities(tools, () => Promise.reject(new Error("not callable")));
  return definitions.map((d) => {
    const input = d.input ?? EMPTY_INPUT;
    const output = d.output ?? EMPTY_INPUT;
    const described = describeCapability({ ...d, description: d.description ?? d.summary, input, output });
    return {
      name: described.name,
      signature: described.signature,
      summary: described.summary,
      output: described.output,
    };
  });
}

/**
 * The `tools/list` entries of the three tools for a gateway whose executions have `limits`, their
 * examples drawn from `tools`, the catalog of the client they are listed to (a template when absent or
 * empty), and that whole catalog listed in execute's description when it fits `listingBytes` (default
 * 4 KiB, `false` turns it off): a client is never shown a tool it may not call.
 */
export function codeModeTools(
  limits?: Partial<Limits>,
  tools: readonly Tool[] = [],
  listingBytes?: number | false,
): SdkTool[] {
  const examples = catalogExamples(exampleCapabilities(tools));
  const budget = listingBudget(listingBytes);
  const catalog = budget > 0 ? catalogListing(listedCapabilities(tools), budget) : undefined;
  const listing: ToolListing[] = toolListing({
    limits,
    examples,
    descriptions: { execute: executeDescription(limits, examples, catalog) + GATEWAY_NOTE },
  });
  return listing as SdkTool[];
}

/** Whether `name` is one of the three tools. */
export function isCodeModeTool(name: string): name is ToolName {
  return isToolName(name);
}

function fail(text: string): JsonObject {
  return { content: [{ type: "text", text }], isError: true };
}

function ok(structured: JsonObject, meta?: JsonObject): JsonObject {
  const out: JsonObject = {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
  if (meta !== undefined) out._meta = meta;
  return out;
}

/** The `_meta` key carrying the execution id (the `execution_id` of its native calls' audit records). */
export const EXECUTION_ID_META = "codemode/executionId";

/**
 * Answers one call of a code-mode tool for `clientId` as an MCP `CallToolResult`. Failures are results
 * with `isError: true` and the adapter's fixed text per error code (nothing internal). The whole answer
 * (result, error text, listing) passes the gateway's redactor here, the one exit of every answer.
 */
export async function answerCodeModeTool(
  service: CodeModeService,
  clientId: string,
  name: ToolName,
  args: unknown,
  signal: AbortSignal,
): Promise<JsonObject> {
  return service.redact(await answer(service, clientId, name, args, signal));
}

async function answer(
  service: CodeModeService,
  clientId: string,
  name: ToolName,
  args: unknown,
  signal: AbortSignal,
): Promise<JsonObject> {
  const value = singleStringArgument(name, args);
  if (value === undefined) {
    // Audited too: every call of the three tools has its record, even one that never ran.
    await service.recordInvalidArguments(clientId, name);
    return fail(BAD_ARGUMENT_TEXTS[name]);
  }
  // Known before the program runs, so a failed execution still names the audit records of its calls.
  const executionId = name === "execute" ? crypto.randomUUID() : undefined;
  try {
    switch (name) {
      case "search_api": {
        const r = await service.search(clientId, value);
        return ok({
          results: r.results.map((x) => ({ name: x.name, signature: x.signature, summary: x.summary })),
          truncated: r.truncated,
        });
      }
      case "describe_api": {
        const d = await service.describe(clientId, value);
        const fields = (list: typeof d.input) =>
          list.map((f) => ({ name: f.name, type: f.type, required: f.required }));
        return ok({
          name: d.name,
          signature: d.signature,
          summary: d.summary,
          description: d.description,
          input: fields(d.input),
          output: fields(d.output),
        });
      }
      case "execute": {
        const { value: result, output } = await service.execute(clientId, value, signal, executionId);
        // The output was redacted with the value (service.ts); cleaned like the MCP server's.
        const printed = output === undefined ? undefined : cleanOutput(output);
        return ok(
          printed === undefined
            ? { result: result as JsonObject }
            : { result: result as JsonObject, output: printed },
          { [EXECUTION_ID_META]: executionId! },
        );
      }
    }
  } catch (err) {
    const printed = err instanceof CodeModeError && err.output !== undefined
      ? cleanOutput(err.output)
      : undefined;
    const out = fail(withOutput(errorText(err, signal), printed));
    if (executionId !== undefined) out._meta = { [EXECUTION_ID_META]: executionId };
    return out;
  }
}
