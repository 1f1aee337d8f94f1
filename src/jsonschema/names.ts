/**
 * Identifier-safe names shared by every JSON-Schema-driven source of capabilities (the gateway's
 * downstream tools, OpenAPI operations): the mapping is deterministic and documented so a model, and an
 * operator reading a diagnostic, can predict it.
 *
 * @module
 */
import { STARLARK_KEYWORDS } from "../text.ts";
import { RESERVED_ROOTS } from "../core/mod.ts";

/**
 * The Starlark identifier for a downstream, tool or property name: every character that is not an
 * ASCII letter, digit or `_` becomes `_`; a leading digit (or an empty name) gets a `_` in front; a
 * keyword or reserved word (`from`, `class`, `lambda`...) gets a `_` appended.
 */
export function identifierFor(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (id === "" || /^[0-9]/.test(id)) id = `_${id}`;
  if (STARLARK_KEYWORDS.has(id)) id = `${id}_`;
  return id;
}

/** Whether `root` cannot start a capability name (a Starlark builtin or predeclared module). */
export function isReservedRoot(root: string): boolean {
  return RESERVED_ROOTS.has(root);
}
