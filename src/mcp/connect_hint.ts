/**
 * What the CLIs print on start so that connecting a client takes a paste: the `mcpServers` entry an MCP
 * client's configuration (Claude Desktop's `claude_desktop_config.json`, a project's `.mcp.json`, ...)
 * needs, for a stdio command or a Streamable HTTP URL. Written to stderr: stdout is the stdio protocol.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** How a client reaches the server. */
export type ConnectTarget =
  | {
    /** Spawned by the client, speaking MCP on stdio. */
    readonly kind: "stdio";
    /** The executable (an absolute path). */
    readonly command: string;
    /** Its arguments. */
    readonly args: readonly string[];
  }
  | {
    /** Streamable HTTP. */
    readonly kind: "http";
    /** The endpoint URL. */
    readonly url: string;
    /** What the client sends as its bearer token, when one is needed (a placeholder, never a key). */
    readonly bearer?: string;
  };

/**
 * The lines that tell an operator how to connect a client: a sentence, then the JSON of an
 * `mcpServers` entry named `name`. A bearer token is always a placeholder the caller chose.
 */
export function connectHint(name: string, target: ConnectTarget): string {
  const entry = target.kind === "stdio" ? { command: target.command, args: [...target.args] } : {
    type: "http",
    url: target.url,
    ...(target.bearer === undefined ? {} : { headers: { Authorization: `Bearer ${target.bearer}` } }),
  };
  // Indented: no line of it starts with "{", so a log reader taking such lines for JSON records skips it.
  const json = JSON.stringify({ mcpServers: { [name]: entry } }, null, 2).replace(/^/gm, "  ");
  return `To connect an MCP client, add this to its configuration (e.g. claude_desktop_config.json or ` +
    `.mcp.json):\n${json}`;
}

/** The absolute path of a file of this checkout, from its path relative to the repository root. */
export function checkoutPath(relative: string): string {
  const url = new URL(`../../${relative}`, import.meta.url);
  return url.protocol === "file:" ? fileURLToPath(url) : url.href;
}
