/**
 * The OpenAPI subsystem's vocabulary: one operation as the rest of the subsystem reads it out of a
 * document, the settings of `fromOpenAPI`, and the glob filters. A leaf: it imports nothing.
 *
 * @module
 */

/** Any JSON value of a document. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object of a document. */
export type JsonMap = { [key: string]: Json };

/** The HTTP methods an OpenAPI path item may hold, lower case as the document spells them. */
export const HTTP_METHODS: readonly string[] = Object.freeze([
  "get",
  "put",
  "post",
  "delete",
  "options",
  "head",
  "patch",
  "trace",
]);

/** Methods that do not change the server's state: what `readOnly` keeps. */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set(["get", "head"]);

/** Where a parameter travels. */
export type ParameterPlace = "path" | "query" | "header" | "cookie";

/** One parameter of an operation (path-level and operation-level merged). */
export interface OperationParameter {
  /** Its name in the document (and on the wire). */
  readonly name: string;
  /** Where it travels. */
  readonly in: ParameterPlace;
  /** Whether the operation needs it (path parameters always do). */
  readonly required: boolean;
  /** Its JSON Schema (absent for `content`-style parameters, which are then `json`). */
  readonly schema?: Json;
  /** Its description. */
  readonly description?: string;
}

/** One operation of a document. */
export interface Operation {
  /** Lower-case HTTP method. */
  readonly method: string;
  /** The path template (`/pets/{petId}`). */
  readonly path: string;
  /** `operationId`, when the document gives one. */
  readonly operationId?: string;
  /** Its tags, in document order. */
  readonly tags: readonly string[];
  /** `summary`. */
  readonly summary?: string;
  /** `description`. */
  readonly description?: string;
  /** Its parameters. */
  readonly parameters: readonly OperationParameter[];
  /** The JSON request body, when it has one. */
  readonly body?: { readonly schema?: Json; readonly required: boolean; readonly mediaType: string };
  /** The first 2xx response: its JSON schema, or that it is text, or that it has no content. */
  readonly response: { readonly kind: "json"; readonly schema?: Json } | { readonly kind: "text" } | {
    readonly kind: "none";
  };
  /** The JSON pointer of the operation in the document (`#/paths/~1pets/get`). */
  readonly pointer: string;
}

/** The label of an operation in diagnostics: `GET /pets (listPets)`. */
export function operationLabel(op: Operation): string {
  const id = op.operationId === undefined ? "" : ` (${op.operationId})`;
  return `${op.method.toUpperCase()} ${op.path}${id}`;
}

/** Credentials and fixed values every call carries; never shown to a program or in an error. */
export interface OpenAPICredentials {
  /**
   * Header values (`{Authorization: "Bearer ${API_TOKEN}"}`); `${NAME}` is replaced by the environment
   * variable `NAME` when the capabilities are made (a missing variable is an error naming it).
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Query parameters added to every call (API keys: `{api_key: "${PETSTORE_KEY}"}`), expanded likewise. */
  readonly query?: Readonly<Record<string, string>>;
  /** HTTP basic authentication, expanded likewise. */
  readonly basicAuth?: { readonly username: string; readonly password: string };
}

/** Where and how the operations of a document are called (the options of `fromOpenAPI` but the builder). */
export interface OpenAPISettings extends OpenAPICredentials {
  /**
   * The API's base URL (`https://api.example.com/v1`). Every call goes to this origin, under this path;
   * the document's `servers` are never used, and redirects to another origin are refused.
   */
  readonly baseUrl: string | URL;
  /** Keep only GET and HEAD operations. */
  readonly readOnly?: boolean;
  /** Keep only operations whose tag, path, operationId or capability name matches one of these globs. */
  readonly include?: readonly string[];
  /** Leave out operations whose tag, path, operationId or capability name matches one of these globs. */
  readonly exclude?: readonly string[];
  /** Largest response body read, in bytes (default 1 MiB, the default `maxValueBytes`). */
  readonly maxResponseBytes?: number;
  /** Deadline of one HTTP call in milliseconds, on top of the execution's own (default 30,000). */
  readonly timeoutMs?: number;
  /** Reads `${NAME}` variables (default `Deno.env.get`). */
  readonly env?: (name: string) => string | undefined;
  /** The `fetch` used for calls (default the global one); tests and proxies may wrap it. */
  readonly fetch?: typeof fetch;
}

/**
 * A glob as a predicate: `*` matches any run of characters (slashes included), `?` one character,
 * everything else itself. Matching is case-sensitive and whole-string.
 */
export function globMatcher(glob: string): (text: string) => boolean {
  const source = glob.split("").map((c) =>
    c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")
  )
    .join("");
  const re = new RegExp(`^${source}$`, "s");
  return (text) => re.test(text);
}

/** The snake_case form of an identifier-like name: `listPets` → `list_pets`, `getHTTPInfo` → `get_http_info`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
}
