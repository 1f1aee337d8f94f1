/**
 * What a stdio downstream's environment may not receive: a client's or an operator's API key, or any
 * downstream's secret. `env_passthrough` copies a variable of the gateway's environment into the child
 * and `env` sets literal values, so either could hand one downstream another's secret (or every
 * client's key) without it ever passing the redactor. Refused by name (the variable a key or a secret
 * is read from) and by value (a variable or literal that happens to hold one), at every load: `--check`,
 * start and reload. Problems name the variable and whose key or secret it is, never the value.
 *
 * @module
 */
import type { ClientConfig, DownstreamConfig } from "./types.ts";
import type { Located, Reader } from "./yaml_tree.ts";

/** One stdio downstream's environment entries, with where they are in the file. */
export interface EnvExposure {
  /** The downstream. */
  readonly downstream: string;
  /** `env_passthrough` and its variable names. */
  readonly passAt: Located;
  /** The variable names passed through. */
  readonly passthrough: readonly string[];
  /** `env` and its literal values by name. */
  readonly envAt: Located;
  /** The literal values set. */
  readonly env: Readonly<Record<string, string>>;
}

/** A holder of a key or secret: its variable name, its value, and how problems name it. */
interface Guarded {
  readonly variable: string;
  readonly value: string | undefined;
  readonly what: string;
}

/** The operators of the configuration, if it has that section (only their key variables matter). */
export interface KeyHolder {
  /** The holder's id. */
  readonly id: string;
  /** The variable its key is read from. */
  readonly apiKeyEnv: string;
  /** The key. */
  readonly apiKey: string;
}

/**
 * Reports every passthrough that names a key or secret variable or whose value (read through `env`)
 * equals a key or secret, and every literal `env` value equal to one. `known` says whether a value is
 * real (a stand-in for an unset variable, `--check` without secrets, is not compared).
 */
export function checkExposures(
  r: Reader,
  env: (name: string) => string | undefined,
  exposures: readonly EnvExposure[],
  holders: {
    readonly clients: readonly ClientConfig[];
    readonly operators?: readonly KeyHolder[];
    readonly downstreams: readonly DownstreamConfig[];
    readonly known: (value: string) => boolean;
  },
): void {
  const guarded: Guarded[] = [
    ...holders.clients.map((c) => ({
      variable: c.apiKeyEnv,
      value: c.apiKey,
      what: `the API key of client ${c.id}`,
    })),
    ...(holders.operators ?? []).map((o) => ({
      variable: o.apiKeyEnv,
      value: o.apiKey,
      what: `the API key of operator ${o.id}`,
    })),
    ...holders.downstreams.flatMap((d) =>
      Object.entries(d.secretEnv).map(([name, variable]) => ({
        variable,
        value: d.secrets[name],
        what: `secret ${name} of downstream ${d.name}`,
      }))
    ),
  ];
  const byVariable = new Map<string, string>();
  const byValue = new Map<string, string>();
  for (const g of guarded) {
    if (!byVariable.has(g.variable)) byVariable.set(g.variable, g.what);
    if (g.value !== undefined && g.value !== "" && holders.known(g.value) && !byValue.has(g.value)) {
      byValue.set(g.value, g.what);
    }
  }
  for (const x of exposures) {
    for (const [i, name] of x.passthrough.entries()) {
      const itemAt = { path: `${x.passAt.path}[${i}]`, offset: x.passAt.offset };
      const named = byVariable.get(name);
      if (named !== undefined) {
        r.problems.add(
          itemAt,
          `"${name}" holds ${named}: passing it through would hand it to downstream ${x.downstream}`,
        );
        continue;
      }
      const value = env(name);
      const same = value === undefined || value === "" ? undefined : byValue.get(value);
      if (same !== undefined) {
        r.problems.add(
          itemAt,
          `"${name}" has the same value as ${same}: passing it through would hand it to downstream ${x.downstream}`,
        );
      }
    }
    for (const [name, value] of Object.entries(x.env)) {
      const same = value === "" ? undefined : byValue.get(value);
      if (same !== undefined) {
        r.problems.add(
          { path: `${x.envAt.path}.${name}`, offset: x.envAt.offset },
          `"${name}" is set to the value of ${same}: it would reach downstream ${x.downstream}`,
        );
      }
    }
  }
}
