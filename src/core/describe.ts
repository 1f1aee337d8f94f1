/**
 * Signatures and type notation for discovery, character for character as the seed specifies:
 * `records.lookup(*, key: str, limit: int | None)`, `records.status()`, `list[{title: str, score: float}]`,
 * `dict[str, bool]`, `{value: str, detail?: str}`, `list[str | None] | None`.
 *
 * @module
 */
import type { TypeSchema } from "../schema.ts";
import type { StructSchema } from "./types.ts";

/** One input or output field as discovery shows it. */
export interface FieldShape {
  /** Field name. */
  readonly name: string;
  /** Type notation. */
  readonly type: string;
  /** Whether the field is always present (outputs) or must be passed (inputs). */
  readonly required: boolean;
}

/** What `describe` returns for one capability. */
export interface Description {
  /** Exact dotted name. */
  readonly name: string;
  /** Invocation-only keyword signature; it ends at `)`. */
  readonly signature: string;
  /** Registered summary. */
  readonly summary: string;
  /** Registered description (defaults to the summary). */
  readonly description: string;
  /** Ordered input fields. */
  readonly input: readonly FieldShape[];
  /** Ordered output fields: the stable result contract. */
  readonly output: readonly FieldShape[];
}

/** Which side of a call a notation describes: it changes how optional struct fields read. */
export type Side = "input" | "output";

function stripNone(schema: TypeSchema): TypeSchema {
  let s = schema;
  while (s.kind === "optional" || s.kind === "nullable") s = s.of;
  return s;
}

/**
 * The compact notation of a type. Every layer of `nullable` (and `optional` outside a struct field)
 * appends `| None` once. Inside a struct an optional field reads `name?: T`; on the input side `T`
 * keeps `| None` because callers may pass `None` for it, on the output side an omitted field is absent
 * rather than `None`, so its type does not gain `| None` from that layer.
 */
export function notation(schema: TypeSchema, side: Side): string {
  switch (schema.kind) {
    case "str":
    case "int":
    case "float":
    case "bool":
    case "json":
      return schema.kind;
    case "optional":
    case "nullable":
      return `${notation(stripNone(schema), side)} | None`;
    case "list":
      return `list[${notation(schema.of, side)}]`;
    case "dict":
      return `dict[str, ${notation(schema.of, side)}]`;
    case "struct":
      return `{${schema.fields.map((f) => fieldNotation(f.name, f.type, side)).join(", ")}}`;
  }
}

function fieldNotation(name: string, type: TypeSchema, side: Side): string {
  if (type.kind === "optional") {
    return `${name}?: ${side === "input" ? notation(type, side) : notation(type.of, side)}`;
  }
  return `${name}: ${notation(type, side)}`;
}

/** The field shapes of a root struct. */
export function fieldShapes(root: StructSchema, side: Side): FieldShape[] {
  return root.fields.map((f) => {
    if (f.type.kind === "optional") {
      // An omitted root output field is absent, so its type keeps only the inner layers' `| None`.
      const type = side === "input" ? notation(f.type, side) : notation(f.type.of, side);
      return Object.freeze({ name: f.name, type, required: false });
    }
    return Object.freeze({ name: f.name, type: notation(f.type, side), required: true });
  });
}

/** The invocation signature of a capability: the name, `*` and its keyword parameters. */
export function signature(name: string, input: StructSchema): string {
  if (input.fields.length === 0) return `${name}()`;
  const params = fieldShapes(input, "input").map((f) => `${f.name}: ${f.type}`);
  return `${name}(*, ${params.join(", ")})`;
}

/** The full description of a capability (frozen). */
export function describeCapability(
  cap: {
    readonly name: string;
    readonly summary: string;
    readonly description: string;
    readonly input: StructSchema;
    readonly output: StructSchema;
  },
): Description {
  return Object.freeze({
    name: cap.name,
    signature: signature(cap.name, cap.input),
    summary: cap.summary,
    description: cap.description,
    input: Object.freeze(fieldShapes(cap.input, "input")),
    output: Object.freeze(fieldShapes(cap.output, "output")),
  });
}
