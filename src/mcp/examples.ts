/**
 * The examples the tool descriptions show a model, drawn from the catalog it actually has: a capability
 * with simple required arguments (read-looking names and read-only hints first), a call to it with
 * plausible literal values of the declared types, a whole program around that call, and search words
 * and a name that find and describe it. Every example is built from the capability's own input
 * descriptor, so it binds: it may fail in the handler (a record that does not exist), never as an
 * invalid program, a missing name or invalid arguments. An empty catalog gets a template that says so.
 *
 * @module
 */
import type { TypeSchema } from "../schema.ts";

/** A struct descriptor (a capability's keyword parameters, or the dict it returns). */
type Struct = TypeSchema & { readonly kind: "struct" };

/** One capability an example may be drawn from. */
export interface ExampleCapability {
  /** Exact dotted name. */
  readonly name: string;
  /** Input descriptor (the keyword parameters). */
  readonly input: TypeSchema & { readonly kind: "struct" };
  /** Output descriptor (the dict a call returns). */
  readonly output?: TypeSchema & { readonly kind: "struct" };
  /** `true`: the host says calling it changes nothing (preferred); `false`: it may (avoided). */
  readonly readOnly?: boolean;
  /**
   * Values the host knows for top-level parameters (a JSON Schema enum's first value, a default, an
   * example), by parameter name; used instead of a made-up value when it has the parameter's type.
   */
  readonly values?: Readonly<Record<string, string | number | boolean>>;
}

/** The examples quoted in the three tool descriptions. */
export interface ToolExamples {
  /** Search queries quoted in the search_api description (each finds the example capability). */
  readonly searches: readonly string[];
  /** The dotted name quoted in the describe_api input schema. */
  readonly describe: string;
  /** The one-call example quoted in the execute rules. */
  readonly call: string;
  /** The whole program quoted at the end of the execute description. */
  readonly program: string;
  /** True for the placeholder examples of an empty catalog (the description says they are a template). */
  readonly template: boolean;
}

/**
 * The examples of an empty catalog: placeholders, and the description says so.
 */
export const TEMPLATE_EXAMPLES: ToolExamples = Object.freeze({
  searches: Object.freeze(["a few words about the data", "task words"]),
  describe: "namespace.capability",
  call: 'namespace.capability(key="value")',
  program: `def main():
    result = namespace.capability(key="value")
    return result`,
  template: true,
});

const READING =
  /^(get|list|read|search|find|describe|show|fetch|lookup|look|query|echo|count|status|info|view|check|stat|summar)/;
const WRITING =
  /(delete|remove|drop|destroy|kill|purge|erase|write|create|update|set|put|post|send|insert|add|edit|move|rename|cancel|refund|pay|charge|exec|run|shutdown|reset|clear|upload|publish|merge|push)/;

function unwrap(schema: TypeSchema): TypeSchema {
  let s = schema;
  while (s.kind === "optional" || s.kind === "nullable") s = s.of;
  return s;
}

function isScalar(schema: TypeSchema): boolean {
  const k = unwrap(schema).kind;
  return k === "str" || k === "int" || k === "float" || k === "bool";
}

/** A plausible string for a parameter called `name`. */
function stringFor(name: string): string {
  const n = name.toLowerCase();
  if (/e_?mail/.test(n)) return "user@example.com";
  if (/url|uri|link|endpoint/.test(n)) return "https://example.com";
  if (/path|file|dir|folder/.test(n)) return "notes.txt";
  if (/(^|_)(date|day|since|until|from|to|start|end)($|_)/.test(n)) return "2025-01-15";
  if (/time/.test(n)) return "2025-01-15T09:00:00Z";
  if (/lang|locale/.test(n)) return "en";
  if (/currency/.test(n)) return "EUR";
  if (/country/.test(n)) return "FR";
  if (/city|location|place/.test(n)) return "Paris";
  if (/(^|_)id$|id$|key$|code$|ref$|sku$/.test(n)) {
    return `${n.replace(/_?(id|key|code|ref)$/, "") || "item"}-1`;
  }
  if (/name|title|label/.test(n)) return "example";
  if (/message|text|content|body|prompt|comment|note/.test(n)) return "hello";
  return "example";
}

function intFor(name: string): number {
  const n = name.toLowerCase();
  if (/limit|count|max|size|top|num|per_?page|^n$/.test(n)) return 5;
  if (/year/.test(n)) return 2025;
  if (/month/.test(n)) return 1;
  if (/port/.test(n)) return 8080;
  return 1;
}

function floatFor(name: string): string {
  const n = name.toLowerCase();
  if (/lat/.test(n)) return "48.85";
  if (/lon|lng/.test(n)) return "2.35";
  if (/amount|price|total|cost/.test(n)) return "10.0";
  return "1.5";
}

function boolFor(name: string): string {
  return /^(include|with|show|verbose|all|recursive)/.test(name.toLowerCase()) ? "True" : "False";
}

/** A Starlark literal of `schema`'s type, plausible for a value called `name`. */
function literal(schema: TypeSchema, name: string, depth = 0): string {
  const s = unwrap(schema);
  switch (s.kind) {
    case "str":
      return JSON.stringify(stringFor(name));
    case "int":
      return String(intFor(name));
    case "float":
      return floatFor(name);
    case "bool":
      return boolFor(name);
    case "list":
      return depth > 4 ? "[]" : `[${literal(s.of, name.replace(/s$/, ""), depth + 1)}]`;
    case "dict":
      return depth > 4 ? "{}" : `{"key": ${literal(s.of, "value", depth + 1)}}`;
    case "struct": {
      if (depth > 4) return "{}";
      const fields = s.fields.filter((f) => f.type.kind !== "optional");
      return `{${
        fields.map((f) => `${JSON.stringify(f.name)}: ${literal(f.type, f.name, depth + 1)}`).join(", ")
      }}`;
    }
    case "json":
      return JSON.stringify(stringFor(name));
    default:
      return "None";
  }
}

function required(input: Struct): readonly { name: string; type: TypeSchema }[] {
  return input.fields.filter((f) => f.type.kind !== "optional");
}

/** Lower is better: read-looking, simple, one or two required scalars. */
function cost(c: ExampleCapability): number {
  const req = required(c.input);
  const last = (c.name.split(".").pop() ?? c.name).toLowerCase();
  let score = 0;
  if (c.readOnly === true) score -= 40;
  if (c.readOnly === false) score += 40;
  if (READING.test(last)) score -= 20;
  else if (WRITING.test(last)) score += 30;
  const complex = req.filter((f) => !isScalar(f.type)).length;
  score += complex * 25;
  // One keyword teaches the call shape best; none shows no keyword; many are noise.
  score += req.length === 1 ? 0 : req.length === 2 ? 4 : req.length === 0 ? 8 : 6 * req.length;
  return score;
}

/** The words of a dotted name's last segment, as a search for it (at most three). */
function searchWords(name: string): string {
  const last = name.split(".").pop() ?? name;
  const words = last.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  return words.slice(0, 3).join(" ").toLowerCase() || name;
}

// A known value is quoted only when it is short printable ASCII: nothing to escape, nothing to leak.
const PLAIN = /^[\x20-\x7e]{0,60}$/;

/** The host's known value for a parameter as a literal of `schema`'s type, if it has that type. */
function knownLiteral(schema: TypeSchema, value: string | number | boolean | undefined): string | undefined {
  const kind = unwrap(schema).kind;
  if (typeof value === "string" && (kind === "str" || kind === "json") && PLAIN.test(value)) {
    return JSON.stringify(value);
  }
  if (typeof value === "boolean" && kind === "bool") return value ? "True" : "False";
  if (typeof value === "number" && kind === "int" && Number.isSafeInteger(value)) return String(value);
  if (typeof value === "number" && kind === "float" && Number.isFinite(value)) {
    const text = String(value);
    return /[.e]/.test(text) ? text : `${text}.0`;
  }
  return undefined;
}

/** The call expression of `c` with plausible values for its required parameters. */
export function exampleCall(c: ExampleCapability): string {
  const args = required(c.input).map((f) => {
    const known = Object.hasOwn(c.values ?? {}, f.name) ? knownLiteral(f.type, c.values![f.name]) : undefined;
    return `${f.name}=${known ?? literal(f.type, f.name)}`;
  });
  return `${c.name}(${args.join(", ")})`;
}

function programFor(c: ExampleCapability, call: string): string {
  const field = c.output?.fields.find((f) => f.type.kind !== "optional");
  if (field === undefined) {
    return `def main():
    result = ${call}
    return result`;
  }
  const read = `result[${JSON.stringify(field.name)}]`;
  // A list field shows slicing; anything else is returned as read.
  const value = unwrap(field.type).kind === "list" && field.type.kind !== "nullable" ? `${read}[:5]` : read;
  return `def main():
    result = ${call}
    return {${JSON.stringify(field.name)}: ${value}}`;
}

/**
 * The examples for a catalog: drawn from its simplest read-looking capability (ties by name), or
 * {@link TEMPLATE_EXAMPLES} when it is empty. Deterministic for a given catalog.
 */
export function catalogExamples(capabilities: readonly ExampleCapability[]): ToolExamples {
  if (capabilities.length === 0) return TEMPLATE_EXAMPLES;
  const ranked = [...capabilities].sort((a, b) =>
    cost(a) - cost(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
  const chosen = ranked[0];
  const call = exampleCall(chosen);
  const namespace = chosen.name.includes(".") ? chosen.name.split(".")[0] : undefined;
  const words = searchWords(chosen.name);
  const searches = namespace === undefined || namespace === words ? [words] : [words, namespace];
  return Object.freeze({
    searches: Object.freeze(searches),
    describe: chosen.name,
    call,
    program: programFor(chosen, call),
    template: false,
  });
}
