/**
 * Code mode on the gateway: each client programs over exactly the downstream tools it may call. The
 * schema mapping (JSON Schema → CodeMode types, identifier-safe names), the per-client capabilities whose
 * native calls run the whole pipeline, the per-client servers over one shared sandbox pool, and the
 * three MCP tools. The schema mapping is `src/jsonschema/`'s (the OpenAPI subsystem maps with it too); a
 * tool's schema stands alone, so the gateway maps without a schema context: `$ref` and `allOf` are `json`.
 *
 * @module
 */
export { identifierFor, isReservedRoot, type NamedTool, nameTools, type Naming } from "./names.ts";
export {
  fromDownstream,
  GENERIC_OUTPUT,
  mapInput,
  mapOutput,
  type Mapped,
  type MappedRoot,
  mapSchema,
  MAX_MAPPED_DEPTH,
  type ParameterNote,
  type Rename,
  toDownstream,
} from "../../jsonschema/mod.ts";
export {
  type ClientCapabilities,
  clientCapabilities,
  type NativeCall,
  nativeFailure,
  resultText,
  safeDetail,
} from "./capabilities.ts";
export { type CodeModeOptions, type CodeModePort, CodeModeService, type SandboxChoice } from "./service.ts";
export {
  answerCodeModeTool,
  codeModeTools,
  exampleCapabilities,
  EXECUTION_ID_META,
  GATEWAY_NOTE,
  isCodeModeTool,
} from "./tools.ts";
