/**
 * A small stdio MCP server for the gateway tests, on the official SDK's low-level `Server`:
 *
 * - `add_tool` registers one more tool (`added_1`, `added_2`, ...) and announces
 *   `notifications/tools/list_changed`;
 * - `crash` exits the process at once (a crashing downstream);
 * - `say {text, delay_ms}` sends a log line and a progress message (both carrying `text` and the value of
 *   its `DYN_SECRET` environment variable, an injected secret), waits `delay_ms`, and answers `text`.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server(
  { name: "dynamic", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true }, logging: {} } },
);
const object = { type: "object" as const };
const tools = [
  { name: "add_tool", description: "Registers one more tool.", inputSchema: object },
  { name: "crash", description: "Exits the server process.", inputSchema: object },
  {
    name: "say",
    description: "Logs and reports progress, then answers.",
    inputSchema: {
      type: "object" as const,
      properties: { text: { type: "string" }, delay_ms: { type: "number" } },
    },
  },
];
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {} } = request.params;
  if (name === "add_tool") {
    const added = `added_${tools.length - 2}`;
    tools.push({ name: added, description: `Added tool ${added}.`, inputSchema: object });
    await server.sendToolListChanged();
    return { content: [{ type: "text", text: `registered ${added}` }] };
  }
  if (name === "crash") Deno.exit(3);
  if (name === "say") {
    const text = String(args.text ?? "");
    const said = `${text} ${Deno.env.get("DYN_SECRET") ?? ""}`;
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: said } });
    const token = request.params._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: 1, total: 1, message: said },
      });
    }
    await new Promise((r) => setTimeout(r, Number(args.delay_ms ?? 0)));
    return { content: [{ type: "text", text }] };
  }
  const added = tools.find((t) => t.name === name);
  if (added !== undefined) return { content: [{ type: "text", text: name }] };
  return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
