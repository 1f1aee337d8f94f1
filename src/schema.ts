/**
 * Runtime type descriptors for capability inputs and outputs. They are plain JSON-able data so the
 * same descriptor can be sent to a sandbox worker, which binds arguments against it.
 *
 * CONTRACT: the descriptor shapes are fixed; the `t` builder and static inference live with the core.
 *
 * @module
 */

/** A type descriptor. */
export type TypeSchema =
  | { readonly kind: "str" }
  | { readonly kind: "int" }
  | { readonly kind: "float" }
  | { readonly kind: "bool" }
  /** A struct field that may be omitted (absent) or None; elsewhere the same as nullable. */
  | { readonly kind: "optional"; readonly of: TypeSchema }
  /** A value that is present but may be None. */
  | { readonly kind: "nullable"; readonly of: TypeSchema }
  | { readonly kind: "list"; readonly of: TypeSchema }
  /** A dict with string keys. */
  | { readonly kind: "dict"; readonly of: TypeSchema }
  /** Ordered named fields. */
  | { readonly kind: "struct"; readonly fields: readonly StructField[] }
  /**
   * Any JSON value: None, bool, int, float, str, and lists and string-keyed dicts of JSON values. For
   * shapes a stricter descriptor cannot state (a gateway tool's union or open map); ints and floats
   * both cross as JS numbers, an integral number in the safe range as an int.
   */
  | { readonly kind: "json" };

/** One field of a struct descriptor. */
export interface StructField {
  /** Starlark-visible field name (a valid identifier). */
  readonly name: string;
  /** Field type. */
  readonly type: TypeSchema;
}

/**
 * The one-word type a binding error names for `schema` ("argument x must be int or None, not str"): the
 * kind itself, seen through optional and nullable, with a struct shown as the dict it is in Starlark.
 * The worker's binding and the host's re-binding both use it, so their messages agree.
 */
export function kindWord(schema: TypeSchema): string {
  switch (schema.kind) {
    case "optional":
    case "nullable":
      return kindWord(schema.of);
    case "struct":
      return "dict";
    case "json":
      return "a JSON value";
    default:
      return schema.kind;
  }
}
