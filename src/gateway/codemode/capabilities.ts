/**
 * The capabilities of one client: each downstream tool of its catalog becomes `downstream.tool`, whose
 * handler makes the call through the gateway's whole pipeline as that client, with the execution it
 * belongs to. A tool's own failure (`isError: true`) is `capability_failure` with its redacted text as
 * the detail; gateway failures (breaker open, timeout, unavailable downstream...) are classified with
 * the gateway's fixed texts; nothing internal reaches the program.
 *
 * @module
 */
import type { CapabilityDefinition, StructSchema } from "../../core/mod.ts";
import { CodeModeError } from "../../errors.ts";
import { setOwn } from "../../plain.ts";
import { utf8Length } from "../../text.ts";
import {
  classifyError,
  type GatewayErrorCode,
  type JsonObject,
  type JsonValue,
  publicErrorText,
  type Result,
  type Tool,
} from "../domain/mod.ts";
import { nameTools } from "./names.ts";
import {
  fromDownstream,
  GENERIC_OUTPUT,
  mapInput,
  mapOutput,
  type Rename,
  toDownstream,
} from "../../jsonschema/mod.ts";

/** One native call as the gateway runs it. */
export type NativeCall = (
  tool: Tool,
  args: JsonObject,
  options: { readonly signal: AbortSignal },
) => Promise<Result>;

/** The capabilities of a catalog, and the tools left out (with why). */
export interface ClientCapabilities {
  /** One definition per mapped tool. */
  readonly definitions: readonly CapabilityDefinition<StructSchema, StructSchema>[];
  /** One line per tool left out of code mode. */
  readonly diagnostics: readonly string[];
}

/** The longest model-visible detail the core accepts from a handler, in UTF-8 bytes. */
const MAX_DETAIL_BYTES = 256;
const MAX_SUMMARY_CHARS = 160;
// What the core refuses in a model-visible detail: controls, format, private-use, unassigned.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\s]+/gu;

/** A downstream's text as one printable line of at most 256 bytes, or undefined when nothing is left. */
export function safeDetail(text: string): string | undefined {
  let s = text.toWellFormed().replace(UNPRINTABLE, " ").trim();
  if (s === "") return undefined;
  if (utf8Length(s) > MAX_DETAIL_BYTES) {
    const chars = Array.from(s);
    while (chars.length > 0 && utf8Length(chars.join("")) > MAX_DETAIL_BYTES - 3) chars.pop();
    s = `${chars.join("").trimEnd()}...`;
  }
  return s;
}

/** The text content items of a result, joined by newlines. */
export function resultText(result: Result): string {
  const content = result.payload.content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((c): c is JsonObject => c !== null && typeof c === "object" && !Array.isArray(c))
    .filter((c) => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text as string)
    .join("\n");
}

/** How a gateway failure reads to a program: its classification, and whether the fixed text is a detail. */
const FAILURES: Readonly<
  Partial<Record<GatewayErrorCode, "permission_denied" | "policy_failure" | "invalid_arguments">>
> = {
  // The tool was in the client's catalog when the program started; policy refused it since (a reload).
  unknown_tool: "permission_denied",
  invalid_tool_name: "permission_denied",
  // The Rego authorizer refused these arguments, or failed.
  denied: "permission_denied",
  authz_failure: "policy_failure",
  invalid_arguments: "invalid_arguments",
};

/**
 * Classifies a failed native call. A cancellation rethrows the signal's reason (the core reports the
 * execution as cancelled); anything else becomes a `CodeModeError` whose detail is the gateway's fixed
 * public text (plus the downstream's redacted text for a protocol error).
 */
export function nativeFailure(name: string, err: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  const e = classifyError(err);
  const code = FAILURES[e.code] ?? (e.code === "internal" ? "internal" : "capability_failure");
  if (code === "permission_denied" || code === "policy_failure" || code === "internal") {
    return new CodeModeError(code, `${name}: ${e.code}`);
  }
  // publicText is redacted by the pipeline; it is a fixed text unless the downstream added detail.
  const detail = safeDetail(e.code === "downstream_error" ? e.publicText : publicErrorText(e.code));
  return new CodeModeError(code, `${name}: ${e.code}`, detail === undefined ? {} : { detail });
}

function summaryOf(tool: Tool): string {
  const source = tool.description ?? tool.title ?? "";
  const first = source.split(/\n\s*\n|\n/)[0].replace(/\s+/g, " ").trim();
  const text = first !== "" ? first : `The ${tool.ref.tool} tool of ${tool.ref.downstream}`;
  return text.length > MAX_SUMMARY_CHARS ? `${text.slice(0, MAX_SUMMARY_CHARS - 3).toWellFormed()}...` : text;
}

function descriptionOf(
  tool: Tool,
  notes: readonly { name: string; text: string }[],
  generic: boolean,
): string {
  const parts = [(tool.description ?? tool.title ?? summaryOf(tool)).trim()];
  if (notes.length > 0) parts.push(`Parameters:\n${notes.map((n) => `- ${n.name}: ${n.text}`).join("\n")}`);
  parts.push(
    generic
      ? 'Returns {"text": the text items joined by newlines, "content": every content item as JSON, ' +
        '"structured": the structured content or None}.'
      : "Returns the tool's structured content.",
  );
  parts.push(`Gateway tool: ${tool.name}.`);
  return parts.join("\n\n").toWellFormed();
}

function searchTermsOf(tool: Tool): string[] {
  const terms = [tool.ref.tool, tool.name, tool.title]
    .filter((x): x is string => typeof x === "string")
    .map((x) => x.replace(/\s+/g, " ").trim().toWellFormed())
    .filter((x) => x !== "" && utf8Length(x) <= 200);
  return [...new Set(terms)];
}

function outputOf(result: Result, rename: Rename | undefined, structured: boolean, name: string): unknown {
  const sc = result.payload.structuredContent;
  if (structured) {
    if (sc === null || typeof sc !== "object" || Array.isArray(sc)) {
      throw new CodeModeError("capability_failure", `${name}: no structured content`, {
        detail: "the tool returned no structured content",
      });
    }
    return fromDownstream(sc, rename);
  }
  const content = Array.isArray(result.payload.content) ? result.payload.content : [];
  return { text: resultText(result), content, structured: sc === undefined ? null : sc };
}

/**
 * The capability definitions of `tools` (a client's filtered catalog), each calling `call`. Tools whose
 * names collide, whose downstream is a reserved root, or whose parameters collide once mapped are
 * left out with a diagnostic.
 */
export function clientCapabilities(tools: readonly Tool[], call: NativeCall): ClientCapabilities {
  const naming = nameTools(tools, (t) => t.ref, (t) => t.name);
  const diagnostics = [...naming.diagnostics];
  const definitions: CapabilityDefinition<StructSchema, StructSchema>[] = [];
  for (const { capability, item: tool } of naming.named) {
    const input = mapInput(tool.inputSchema);
    if (typeof input === "string") {
      diagnostics.push(`tool ${tool.name} is left out of code mode: ${input}`);
      continue;
    }
    const mappedOut = mapOutput(tool.outputSchema);
    const output = (mappedOut?.type ?? GENERIC_OUTPUT) as StructSchema;
    const outRename = mappedOut?.rename;
    const inRename = input.rename;
    definitions.push({
      // The gateway's namespaced name is the stable identity an authorizer sees.
      id: tool.name,
      name: capability,
      summary: summaryOf(tool),
      description: descriptionOf(tool, input.notes, mappedOut === undefined),
      searchTerms: searchTermsOf(tool),
      input: input.type,
      output,
      handler: async (bound, ctx) => {
        const args: JsonObject = {};
        for (const [k, v] of Object.entries(toDownstream(bound, inRename) as JsonObject)) {
          setOwn(args as Record<string, unknown>, k, v as JsonValue);
        }
        let result: Result;
        try {
          result = await call(tool, args, { signal: ctx.signal });
        } catch (err) {
          throw nativeFailure(capability, err, ctx.signal);
        }
        if (result.isError) {
          const detail = safeDetail(resultText(result));
          throw new CodeModeError(
            "capability_failure",
            `${capability}: the tool reported an error`,
            detail === undefined ? {} : { detail },
          );
        }
        return outputOf(result, outRename, mappedOut !== undefined, capability) as never;
      },
    });
  }
  return { definitions, diagnostics };
}
