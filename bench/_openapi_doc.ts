/**
 * A generated OpenAPI 3.0 document of `areas × nouns × 5` operations (list, get, create, update,
 * delete per resource, each resource its own tag and component schema), for the OpenAPI build benchmark
 * and the large-document test.
 *
 * @module
 */

/** Resource nouns (singular), 50 of them. */
export const NOUNS: readonly string[] = Object.freeze([
  "order",
  "invoice",
  "customer",
  "product",
  "shipment",
  "payment",
  "refund",
  "coupon",
  "review",
  "ticket",
  "agent",
  "team",
  "project",
  "task",
  "comment",
  "file",
  "folder",
  "report",
  "metric",
  "alert",
  "incident",
  "deployment",
  "build",
  "release",
  "repository",
  "branch",
  "commit",
  "issue",
  "label",
  "milestone",
  "account",
  "contact",
  "lead",
  "deal",
  "campaign",
  "segment",
  "template",
  "webhook",
  "token",
  "session",
  "device",
  "sensor",
  "reading",
  "location",
  "route",
  "vehicle",
  "driver",
  "booking",
  "room",
  "guest",
]);

/** Business areas, 8 of them: 8 × 50 × 5 = 2,000 operations. */
export const AREAS: readonly string[] = Object.freeze([
  "billing",
  "shipping",
  "support",
  "sales",
  "marketing",
  "fleet",
  "hosting",
  "travel",
]);

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);

/** The document, with `areas` areas (default all 8) over all 50 nouns. */
export function generatedDocument(areas = AREAS.length): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const area of AREAS.slice(0, areas)) {
    for (const noun of NOUNS) {
      const tag = `${area}_${noun}s`;
      const type = `${cap(area)}${cap(noun)}`;
      schemas[type] = {
        type: "object",
        required: ["id", "name"],
        properties: {
          id: { type: "string", description: `The ${noun}'s id` },
          name: { type: "string" },
          status: { type: "string", enum: ["active", "archived", "pending"] },
          created_at: { type: "string", format: "date-time" },
          amount: { type: "number" },
        },
      };
      const ref = { $ref: `#/components/schemas/${type}` };
      const json = (schema: unknown) => ({ "application/json": { schema } });
      const idParam = { name: `${noun}Id`, in: "path", required: true, schema: { type: "string" } };
      paths[`/${area}/${noun}s`] = {
        get: {
          operationId: `list${type}s`,
          tags: [tag],
          summary: `List the ${noun}s of ${area}`,
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", maximum: 100 } },
            {
              name: "status",
              in: "query",
              schema: { type: "string", enum: ["active", "archived", "pending"] },
            },
          ],
          responses: { "200": { description: "ok", content: json({ type: "array", items: ref }) } },
        },
        post: {
          operationId: `create${type}`,
          tags: [tag],
          summary: `Create a ${noun} in ${area}`,
          requestBody: { required: true, content: json(ref) },
          responses: { "201": { description: "created", content: json(ref) } },
        },
      };
      paths[`/${area}/${noun}s/{${noun}Id}`] = {
        get: {
          operationId: `get${type}`,
          tags: [tag],
          summary: `Read one ${noun} of ${area} by id`,
          parameters: [idParam],
          responses: { "200": { description: "ok", content: json(ref) } },
        },
        patch: {
          operationId: `update${type}`,
          tags: [tag],
          summary: `Change a ${noun} of ${area}`,
          parameters: [idParam],
          requestBody: {
            content: json({
              type: "object",
              properties: { name: { type: "string" }, status: { type: "string" } },
            }),
          },
          responses: { "200": { description: "ok", content: json(ref) } },
        },
        delete: {
          operationId: `delete${type}`,
          tags: [tag],
          summary: `Delete a ${noun} of ${area}`,
          parameters: [idParam],
          responses: { "204": { description: "deleted" } },
        },
      };
    }
  }
  return {
    openapi: "3.0.3",
    info: { title: "Generated API", version: "1.0.0" },
    paths,
    components: { schemas },
  };
}
