/**
 * Capability names for operations: `tag.operation`, the first tag and the `operationId` in snake_case
 * (`listPets` tagged `pets` → `pets.list_pets`); an operation without an id is named by its method and
 * path (`GET /pets/{petId}` → `get_pets_pet_id`), one without a tag goes under `api`. Both parts then
 * pass the shared identifier rules. Operations whose names collide are refused together, each
 * diagnostic naming the other; a tag that maps to a reserved root is refused too.
 *
 * @module
 */
import { identifierFor, isReservedRoot } from "../jsonschema/mod.ts";
import { type Operation, operationLabel, snakeCase } from "./domain.ts";

/** The root of operations without a tag. */
export const UNTAGGED_ROOT = "api";

/** The capability name of an operation. */
export function capabilityName(op: Operation): string {
  const tag = op.tags[0];
  const root = tag === undefined ? UNTAGGED_ROOT : identifierFor(snakeCase(tag));
  const leaf = op.operationId !== undefined && op.operationId !== ""
    ? snakeCase(op.operationId)
    : snakeCase(`${op.method} ${op.path}`);
  return `${root}.${identifierFor(leaf)}`;
}

/** Named operations, and a diagnostic per refused one. */
export interface NamedOperations {
  /** Operations with a name of their own, in document order. */
  readonly named: readonly { readonly name: string; readonly operation: Operation }[];
  /** One line per refused operation. */
  readonly diagnostics: readonly string[];
}

/** Names every operation; see the module documentation for the rules. */
export function nameOperations(operations: readonly Operation[]): NamedOperations {
  const diagnostics: string[] = [];
  const byName = new Map<string, Operation[]>();
  for (const op of operations) {
    const name = capabilityName(op);
    const root = name.slice(0, name.indexOf("."));
    if (isReservedRoot(root)) {
      diagnostics.push(
        `operation ${operationLabel(op)} maps to ${name}, whose root ${JSON.stringify(root)} is a reserved ` +
          "Starlark name: retag it or leave it out",
      );
      continue;
    }
    const group = byName.get(name);
    if (group === undefined) byName.set(name, [op]);
    else group.push(op);
  }
  const named: { name: string; operation: Operation }[] = [];
  for (const [name, group] of byName) {
    if (group.length === 1) {
      named.push({ name, operation: group[0] });
      continue;
    }
    for (const op of group) {
      const others = group.filter((o) => o !== op).map(operationLabel).join(", ");
      diagnostics.push(`operation ${operationLabel(op)} maps to ${name}, as ${others} does`);
    }
  }
  const order = new Map(operations.map((op, i) => [op, i]));
  named.sort((a, b) => order.get(a.operation)! - order.get(b.operation)!);
  return { named, diagnostics };
}
