/**
 * The `t` type builder: runtime {@link TypeSchema} descriptors for capability inputs and outputs, with
 * static inference so handlers are fully typed.
 *
 * ```ts
 * import { t, type Infer } from "./types.ts";
 *
 * const input = t.struct({ key: t.str(), limit: t.optional(t.int()) });
 * type Input = Infer<typeof input>; // { key: string; limit?: number }
 * ```
 *
 * Descriptors are frozen plain data (the same shapes as `src/schema.ts`), so they can be sent to a
 * sandbox worker as they are.
 *
 * @module
 */
import type { StructField, TypeSchema } from "../schema.ts";

/** Descriptor of a Starlark `str` (a JS `string`). */
export interface StrSchema {
  /** Kind tag. */
  readonly kind: "str";
}

/** Descriptor of a Starlark `int`, restricted to JS safe integers (|n| ≤ 2^53−1). */
export interface IntSchema {
  /** Kind tag. */
  readonly kind: "int";
}

/** Descriptor of a finite Starlark `float` (a JS `number`). */
export interface FloatSchema {
  /** Kind tag. */
  readonly kind: "float";
}

/** Descriptor of a Starlark `bool`. */
export interface BoolSchema {
  /** Kind tag. */
  readonly kind: "bool";
}

/**
 * An optional value. As a struct field it may be omitted (or passed as `None`, which counts as omitted);
 * anywhere else it behaves like {@link NullableSchema}.
 */
export interface OptionalSchema<T extends TypeSchema = TypeSchema> {
  /** Kind tag. */
  readonly kind: "optional";
  /** The type of a present value. */
  readonly of: T;
}

/** A value that is always present but may be `None` (JS `null`). */
export interface NullableSchema<T extends TypeSchema = TypeSchema> {
  /** Kind tag. */
  readonly kind: "nullable";
  /** The type of a non-None value. */
  readonly of: T;
}

/** A Starlark list (a JS array). */
export interface ListSchema<T extends TypeSchema = TypeSchema> {
  /** Kind tag. */
  readonly kind: "list";
  /** Element type. */
  readonly of: T;
}

/** A Starlark dict with string keys (a JS plain object). */
export interface DictSchema<T extends TypeSchema = TypeSchema> {
  /** Kind tag. */
  readonly kind: "dict";
  /** Value type. */
  readonly of: T;
}

/** Field types of a struct, keyed by their Starlark names (in declaration order). */
export type StructShape = { readonly [name: string]: TypeSchema };

/** Ordered named fields (a dictionary-like object in Starlark, a plain object in JS). */
export interface StructSchema<F extends StructShape = StructShape> {
  /** Kind tag. */
  readonly kind: "struct";
  /** The fields in declaration order. */
  readonly fields: readonly StructField[];
  /** Type-level only: the field map the struct was built from. Never present at run time. */
  readonly "~shape"?: F;
}

/**
 * Any JSON value (`None`, bool, int, float, str, list, dict with string keys, nested), for shapes no
 * stricter descriptor states exactly. Its notation is `json`.
 */
export interface JsonValueSchema {
  /** Kind tag. */
  readonly kind: "json";
}

/** The JS value of a {@link JsonValueSchema}. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Flattens an intersection into one object type (for readable hover types). */
export type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

/** The keys of a struct's optional fields. */
export type OptionalKeys<F extends StructShape> = {
  [K in keyof F]: F[K] extends OptionalSchema ? K : never;
}[keyof F];

/** The keys of a struct's required fields. */
export type RequiredKeys<F extends StructShape> = Exclude<keyof F, OptionalKeys<F>>;

/** The JS value of a struct built from field map `F` (what a handler receives). */
export type InferShape<F extends StructShape> = Simplify<
  & { -readonly [K in RequiredKeys<F>]: Infer<F[K]> }
  & { -readonly [K in OptionalKeys<F>]?: F[K] extends OptionalSchema<infer T> ? Infer<T> : never }
>;

/**
 * The JS value described by a schema, as a handler receives it and as a program sees it: `str` →
 * `string`, `int`/`float` → `number`, `bool` → `boolean`, `nullable(T)` → `T | null`, `list(T)` → `T[]`,
 * `dict(T)` → `Record<string, T>`, structs → objects whose optional fields are optional keys.
 */
export type Infer<S extends TypeSchema> = [TypeSchema] extends [S] ? unknown : InferKnown<S>;

/**
 * {@link Infer} for a specific schema, distributed over unions. The general `TypeSchema` stops at
 * `unknown` in {@link Infer}, which keeps the recursion finite (a general struct's fields are general).
 */
export type InferKnown<S extends TypeSchema> = S extends StrSchema ? string
  : S extends IntSchema ? number
  : S extends FloatSchema ? number
  : S extends BoolSchema ? boolean
  : S extends OptionalSchema<infer T> ? Infer<T> | null
  : S extends NullableSchema<infer T> ? Infer<T> | null
  : S extends ListSchema<infer T> ? Infer<T>[]
  : S extends DictSchema<infer T> ? Record<string, Infer<T>>
  : S extends StructSchema<infer F> ? InferShape<F>
  : S extends JsonValueSchema ? JsonValue
  : unknown;

/** The JS value a handler may return for a struct built from field map `F`. */
export type InferOutputShape<F extends StructShape> = Simplify<
  & { readonly [K in RequiredKeys<F>]: InferOutput<F[K]> }
  & {
    readonly [K in OptionalKeys<F>]?: F[K] extends OptionalSchema<infer T> ? InferOutput<T> | null : never;
  }
>;

/**
 * The JS value a handler may return for a schema. Looser than {@link Infer}, following the conversion
 * rules: `null`/`undefined` for a list or dict becomes `None` (like a nil slice or map), an optional
 * struct field may be omitted or `null` (it is then absent), a nullable value may be `undefined`
 * (→ `None`), and a dict may also be a `Map` with string keys.
 */
export type InferOutput<S extends TypeSchema> = [TypeSchema] extends [S] ? unknown : InferOutputKnown<S>;

/** {@link InferOutput} for a specific schema, distributed over unions. */
export type InferOutputKnown<S extends TypeSchema> = S extends StrSchema ? string
  : S extends IntSchema ? number
  : S extends FloatSchema ? number
  : S extends BoolSchema ? boolean
  : S extends OptionalSchema<infer T> ? InferOutput<T> | null | undefined
  : S extends NullableSchema<infer T> ? InferOutput<T> | null | undefined
  : S extends ListSchema<infer T> ? readonly InferOutput<T>[] | null | undefined
  : S extends DictSchema<infer T>
    ? Readonly<Record<string, InferOutput<T>>> | ReadonlyMap<string, InferOutput<T>> | null | undefined
  : S extends StructSchema<infer F> ? InferOutputShape<F>
  : S extends JsonValueSchema ? JsonValue | undefined
  : unknown;

const STR: StrSchema = Object.freeze({ kind: "str" });
const INT: IntSchema = Object.freeze({ kind: "int" });
const FLOAT: FloatSchema = Object.freeze({ kind: "float" });
const BOOL: BoolSchema = Object.freeze({ kind: "bool" });
const JSON_VALUE: JsonValueSchema = Object.freeze({ kind: "json" });

/** The type builder namespace. */
export interface TypeBuilder {
  /** A string. */
  str(): StrSchema;
  /** A safe integer. */
  int(): IntSchema;
  /** A finite float. */
  float(): FloatSchema;
  /** A Boolean. */
  bool(): BoolSchema;
  /** Any JSON value (`json` in discovery); use it only where no stricter type states the shape. */
  json(): JsonValueSchema;
  /** A struct field that may be omitted or `None`; elsewhere the same as {@link TypeBuilder.nullable}. */
  optional<T extends TypeSchema>(of: T): OptionalSchema<T>;
  /** A value that may be `None`. */
  nullable<T extends TypeSchema>(of: T): NullableSchema<T>;
  /** A list of `of`. */
  list<T extends TypeSchema>(of: T): ListSchema<T>;
  /** A dict from strings to `of`. */
  dict<T extends TypeSchema>(of: T): DictSchema<T>;
  /** A struct; key order is field order, keys are the Starlark names. */
  struct<F extends StructShape>(fields: F): StructSchema<F>;
}

/**
 * Builds type descriptors. Every builder returns frozen data; validation (identifier field names,
 * supported shapes, nesting) happens when a capability is registered and is reported by `build()`.
 */
export const t: TypeBuilder = Object.freeze({
  str: (): StrSchema => STR,
  int: (): IntSchema => INT,
  float: (): FloatSchema => FLOAT,
  bool: (): BoolSchema => BOOL,
  json: (): JsonValueSchema => JSON_VALUE,
  optional: <T extends TypeSchema>(of: T): OptionalSchema<T> => Object.freeze({ kind: "optional", of }),
  nullable: <T extends TypeSchema>(of: T): NullableSchema<T> => Object.freeze({ kind: "nullable", of }),
  list: <T extends TypeSchema>(of: T): ListSchema<T> => Object.freeze({ kind: "list", of }),
  dict: <T extends TypeSchema>(of: T): DictSchema<T> => Object.freeze({ kind: "dict", of }),
  struct<F extends StructShape>(fields: F): StructSchema<F> {
    if (fields === null || typeof fields !== "object" || Array.isArray(fields)) {
      throw new TypeError("t.struct expects an object mapping field names to types");
    }
    const list: StructField[] = Object.entries(fields).map(([name, type]) => Object.freeze({ name, type }));
    return Object.freeze({ kind: "struct", fields: Object.freeze(list) });
  },
});
