/**
 * Code mode over any HTTP API an OpenAPI 3.0 or 3.1 document describes: {@link fromOpenAPI} registers one
 * capability per operation on a `Builder`, typed from the document's schemas, each calling the API
 * with `fetch` on the configured origin only.
 *
 * ```ts
 * import { allowAll, Builder } from "@codemode/codemode";
 * import { fromOpenAPI } from "@codemode/codemode/openapi";
 *
 * const builder = new Builder({ authorizer: allowAll() });
 * await fromOpenAPI("petstore.yaml", {
 *   builder,
 *   baseUrl: "http://127.0.0.1:4010",
 *   headers: { Authorization: "Bearer ${PETSTORE_TOKEN}" },
 * });
 * const server = await builder.build();
 * ```
 *
 * @module
 */
export {
  type DocumentProblem,
  fromOpenAPI,
  type OpenAPICredentials,
  OpenAPIDocumentError,
  type OpenAPIOptions,
  type OpenAPIRegistration,
  type OpenAPISettings,
  type SkippedOperation,
} from "./src/openapi/mod.ts";
