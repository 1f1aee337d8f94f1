/**
 * Identifier-safe names for code mode: a downstream `my-files` and its tool `get-env` become the
 * capability `my_files.get_env`. The mapping is deterministic and documented so a model (and an operator
 * reading a diagnostic) can predict it; two tools that map to one name are both refused, never merged.
 *
 * @module
 */
import { identifierFor, isReservedRoot } from "../../jsonschema/mod.ts";

// The identifier rules are shared with the OpenAPI subsystem; the gateway re-exports them.
export { identifierFor, isReservedRoot };

/** One downstream tool as code mode names it. */
export interface NamedTool<T> {
  /** The capability name, `downstream.tool` in identifier form. */
  readonly capability: string;
  /** The item it names. */
  readonly item: T;
}

/** The outcome of naming every tool of a catalog. */
export interface Naming<T> {
  /** The tools that got a name of their own, in catalog order. */
  readonly named: readonly NamedTool<T>[];
  /** One line per refused tool, naming it and (for a collision) the tool it collides with. */
  readonly diagnostics: readonly string[];
}

/**
 * Names every tool: `label(item)` is its namespaced gateway name (for diagnostics), `parts(item)` its
 * downstream and tool names. A tool whose downstream maps to a reserved root is refused; tools whose
 * names collide are all refused, each diagnostic naming both.
 */
export function nameTools<T>(
  items: readonly T[],
  parts: (item: T) => { readonly downstream: string; readonly tool: string },
  label: (item: T) => string,
): Naming<T> {
  const diagnostics: string[] = [];
  const byName = new Map<string, T[]>();
  for (const item of items) {
    const { downstream, tool } = parts(item);
    const root = identifierFor(downstream);
    if (isReservedRoot(root)) {
      diagnostics.push(
        `tool ${label(item)} is left out of code mode: its downstream maps to ${JSON.stringify(root)}, ` +
          "a reserved Starlark name",
      );
      continue;
    }
    const capability = `${root}.${identifierFor(tool)}`;
    const same = byName.get(capability);
    if (same === undefined) byName.set(capability, [item]);
    else same.push(item);
  }
  const named: NamedTool<T>[] = [];
  for (const [capability, group] of byName) {
    if (group.length === 1) {
      named.push({ capability, item: group[0] });
      continue;
    }
    for (const item of group) {
      const others = group.filter((o) => o !== item).map(label).join(", ");
      diagnostics.push(
        `tool ${label(item)} is left out of code mode: it maps to ${capability}, as ${others} does`,
      );
    }
  }
  // Catalog order, so search ties and diagnostics read in listing order.
  const order = new Map(items.map((item, i) => [item, i]));
  named.sort((a, b) => order.get(a.item)! - order.get(b.item)!);
  return { named, diagnostics };
}
