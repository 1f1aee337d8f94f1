/**
 * Helpers for the OpenAPI tests: loopback HTTP servers that count and record what reaches them, small
 * documents, and a server built from a document.
 *
 * @module
 */
import { allowAll, Builder, type Server } from "../../mod.ts";
import { fromOpenAPI, type OpenAPIRegistration, type OpenAPISettings } from "../../openapi.ts";

/** A request as a loopback server saw it. */
export interface Seen {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string;
}

/** A loopback HTTP server that records every request. */
export interface Loopback {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly seen: Seen[];
  /** Stops it. */
  close(): Promise<void>;
}

/** Serves `answer` on a free loopback port. */
export function loopback(
  answer: (req: Seen) => Response | Promise<Response> = () => Response.json({}),
): Loopback {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const req = {
      method: request.method,
      url: new URL(request.url),
      headers: request.headers,
      body: await request.text(),
    };
    seen.push(req);
    return await answer(req);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    close: () => server.shutdown(),
  };
}

/** An OpenAPI 3.0 document with these paths (and components). */
export function doc(
  paths: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { openapi: "3.0.3", info: { title: "Test API", version: "1.0.0" }, paths, ...extra };
}

/** An operation answering JSON `schema` with 200. */
export function op(
  operationId: string,
  more: Record<string, unknown> = {},
  schema: unknown = { type: "object" },
) {
  return {
    operationId,
    tags: ["items"],
    responses: { "200": { description: "ok", content: { "application/json": { schema } } } },
    ...more,
  };
}

/** A built server over `document` and what was registered. */
export async function build(
  document: string | Record<string, unknown>,
  settings: OpenAPISettings,
): Promise<{ server: Server; registered: OpenAPIRegistration }> {
  // Failures are asserted on; the core's default log of each one would only be noise here.
  const builder = new Builder({ authorizer: allowAll(), executor: "inline", onError: () => {} });
  const registered = await fromOpenAPI(document, { builder, ...settings });
  return { server: await builder.build(), registered };
}

/** The failure `promise` rejects with, as `{code, message, detail}`. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; detail: string }> {
  try {
    await promise;
  } catch (e) {
    const err = e as { code?: string; message?: string; detail?: string };
    return { code: err.code ?? "", message: err.message ?? "", detail: err.detail ?? "" };
  }
  throw new Error("expected a failure");
}

/** A one-line Starlark program returning `expr`. */
export function main(expr: string): string {
  return `def main():\n    return ${expr}\n`;
}
