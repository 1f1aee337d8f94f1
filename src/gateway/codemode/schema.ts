/**
 * JSON Schema → CodeMode types, for the tools a downstream lists. The converter itself lives in
 * `src/jsonschema/` (the OpenAPI subsystem maps with it too); see that module for the mapping rules.
 * A tool's schema stands alone, so the gateway maps without a schema context: `$ref` and `allOf` are
 * `json`.
 *
 * @module
 */
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
