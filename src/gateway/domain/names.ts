/**
 * Tool names: a downstream's tool is presented to clients as `downstream__tool`.
 *
 * @module
 */
import { GatewayError } from "./errors.ts";

/** The separator between the downstream name and the tool's own name. */
export const SEPARATOR = "__";

/**
 * The longest namespaced name accepted. Longer names are rejected before any other work, so a hostile
 * client cannot make the gateway carry megabyte-long names into logs and metrics.
 */
export const MAX_TOOL_NAME_LENGTH = 256;

/** Identifies a tool on a specific downstream server. Immutable. */
export interface ToolRef {
  /** The configured downstream server name (for example `github`). */
  readonly downstream: string;
  /** The tool's own name on that downstream (for example `create_issue`). */
  readonly tool: string;
}

/**
 * Whether `name` can be a downstream name: non-empty, no separator inside and not ending in `_`.
 * Such a name makes {@link formatToolRef} injective: the first `__` of a namespaced name is always the
 * separator, because a valid downstream name can neither contain `__` nor end with `_`.
 */
export function isValidDownstreamName(name: string): boolean {
  return name.length > 0 && !name.includes(SEPARATOR) && !name.endsWith("_") &&
    name.length < MAX_TOOL_NAME_LENGTH;
}

/** Why a namespaced name was rejected, or `undefined` when it parses. */
function problem(namespaced: string): string | undefined {
  if (namespaced.length > MAX_TOOL_NAME_LENGTH) return `longer than ${MAX_TOOL_NAME_LENGTH} characters`;
  const at = namespaced.indexOf(SEPARATOR);
  if (at < 0) return `missing the "${SEPARATOR}" separator`;
  if (at === 0) return "empty downstream name";
  const tool = namespaced.slice(at + SEPARATOR.length);
  if (tool === "") return "empty tool name";
  // `a____b`: a doubled separator. Tools whose own names contain `__` further on (a gateway fronting a
  // gateway) stay expressible, but a tool name cannot start with the separator.
  if (tool.startsWith(SEPARATOR)) return `doubled "${SEPARATOR}" separator`;
  return undefined;
}

/**
 * Parses `downstream__tool`. Rejects a missing separator, an empty downstream or tool part, a doubled
 * separator and over-long names with a {@link GatewayError} of code `invalid_tool_name`; the error
 * message never quotes the name (it is client input).
 */
export function parseToolRef(namespaced: string): ToolRef {
  const why = problem(namespaced);
  if (why !== undefined) throw new GatewayError("invalid_tool_name", `invalid tool name: ${why}`);
  const at = namespaced.indexOf(SEPARATOR);
  return Object.freeze({
    downstream: namespaced.slice(0, at),
    tool: namespaced.slice(at + SEPARATOR.length),
  });
}

/** Parses like {@link parseToolRef} but answers `undefined` instead of throwing. */
export function tryParseToolRef(namespaced: string): ToolRef | undefined {
  return problem(namespaced) === undefined ? parseToolRef(namespaced) : undefined;
}

/**
 * Formats a ref as `downstream__tool`, the inverse of {@link parseToolRef}. Throws `invalid_tool_name`
 * for a ref that could not be parsed back to itself (an invalid downstream name, an empty tool name, a
 * tool name starting with the separator, or a result over {@link MAX_TOOL_NAME_LENGTH}).
 */
export function formatToolRef(ref: ToolRef): string {
  if (!isValidDownstreamName(ref.downstream)) {
    throw new GatewayError("invalid_tool_name", "invalid tool name: bad downstream name");
  }
  const name = `${ref.downstream}${SEPARATOR}${ref.tool}`;
  const why = problem(name);
  if (why !== undefined) throw new GatewayError("invalid_tool_name", `invalid tool name: ${why}`);
  return name;
}

/** Creates a frozen ref after checking that it formats (see {@link formatToolRef}). */
export function toolRef(downstream: string, tool: string): ToolRef {
  const ref = Object.freeze({ downstream, tool });
  formatToolRef(ref);
  return ref;
}

/** Whether two refs name the same tool. */
export function sameToolRef(a: ToolRef, b: ToolRef): boolean {
  return a.downstream === b.downstream && a.tool === b.tool;
}
