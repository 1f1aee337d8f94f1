/**
 * JSON Schema → CodeMode types and identifier-safe names: the one converter behind every capability
 * source that is described by JSON Schema rather than written in TypeScript (the gateway's code mode over
 * downstream tools, OpenAPI operations).
 *
 * @module
 */
export { identifierFor, isReservedRoot } from "./names.ts";
export {
  fromDownstream,
  GENERIC_OUTPUT,
  type JsonObject,
  type JsonValue,
  mapInput,
  mapOutput,
  type Mapped,
  type MappedRoot,
  mapSchema,
  MAX_MAPPED_DEPTH,
  type ParameterNote,
  type Rename,
  SchemaContext,
  toDownstream,
} from "./convert.ts";
