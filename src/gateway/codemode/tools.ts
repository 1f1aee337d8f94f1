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
  errorText,
  executeDescription,
  isToolName,
  singleStringArgument,
  type ToolListing,
  toolListing,
  type ToolName,
} from "../../../mcp.ts";
import type { Limits } from "../../core/mod.ts";
import type { JsonObject } from "../domain/mod.ts";
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

/** The `tools/list` entries of the three tools for a gateway whose executions have `limits`. */
export function codeModeTools(limits?: Partial<Limits>): SdkTool[] {
  const tools: ToolListing[] = toolListing({
    limits,
    descriptions: { execute: executeDescription(limits) + GATEWAY_NOTE },
  });
  return tools as SdkTool[];
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
 * with `isError: true` and the adapter's fixed text per error code (nothing internal).
 */
export async function answerCodeModeTool(
  service: CodeModeService,
  clientId: string,
  name: ToolName,
  args: unknown,
  signal: AbortSignal,
): Promise<JsonObject> {
  const value = singleStringArgument(name, args);
  if (value === undefined) return fail(BAD_ARGUMENT_TEXTS[name]);
  // Known before the program runs, so a failed execution still names the audit records of its calls.
  const executionId = name === "execute" ? crypto.randomUUID() : undefined;
  try {
    switch (name) {
      case "search_api": {
        const r = (await service.serverFor(clientId)).search(value);
        return ok({
          results: r.results.map((x) => ({ name: x.name, signature: x.signature, summary: x.summary })),
          truncated: r.truncated,
        });
      }
      case "describe_api": {
        const d = (await service.serverFor(clientId)).describe(value);
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
        const { value: result } = await service.execute(clientId, value, signal, executionId);
        return ok({ result: result as JsonObject }, { [EXECUTION_ID_META]: executionId! });
      }
    }
  } catch (err) {
    const out = fail(errorText(err, signal));
    if (executionId !== undefined) out._meta = { [EXECUTION_ID_META]: executionId };
    return out;
  }
}
