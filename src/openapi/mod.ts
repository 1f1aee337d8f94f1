/**
 * OpenAPI: code mode over any HTTP API an OpenAPI 3.0/3.1 document describes. A document becomes one
 * capability per operation through the same JSON Schema → CodeMode type converter as the gateway's code
 * mode (`src/jsonschema/`); handlers fetch only from the configured origin.
 *
 * @module
 */
export {
  fromOpenAPI,
  type OpenAPIOptions,
  type OpenAPIRegistration,
  type SkippedOperation,
} from "./from_openapi.ts";
export { type DocumentProblem, loadDocument, type LoadedDocument, OpenAPIDocumentError } from "./document.ts";
export { type OpenAPICredentials, type OpenAPISettings } from "./domain.ts";
export { capabilityName, UNTAGGED_ROOT } from "./naming.ts";
