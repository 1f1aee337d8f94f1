/**
 * A scripted {@link Service} for adapter tests: a fixed two-capability catalog, and `execute` driven by
 * the source text so every error code and every result shape can be produced on demand.
 *
 * Sources understood by `execute`:
 * - `fail <code>` / `fail <code> <detail...>` rejects with that `CodeModeError` (and detail);
 * - `throw` rejects with a plain `Error` whose message must not leak;
 * - `wait` waits until the signal aborts, then rejects with its reason;
 * - `subject` resolves to the subject id and the context subject seen inside the call;
 * - `json <value>` resolves to the parsed JSON value;
 * - anything else resolves to `{ echo: source }`.
 *
 * @module
 */
import { currentSubject, type Subject } from "../../authz.ts";
import { CodeModeError, type Description, type ErrorCode, type SearchResponse } from "../../mod.ts";
import type { Service, ServiceExecuteOptions } from "../../mcp.ts";

/** The descriptions of the fake catalog. */
export const FAKE_DESCRIPTIONS: readonly Description[] = [
  {
    name: "records.lookup",
    signature: "records.lookup(*, key: str, limit: int | None)",
    summary: "Look up one stored record by key",
    description: "Look up one stored record by key",
    input: [{ name: "key", type: "str", required: true }, {
      name: "limit",
      type: "int | None",
      required: false,
    }],
    output: [{ name: "key", type: "str", required: true }, { name: "count", type: "int", required: true }],
  },
  {
    name: "records.status",
    signature: "records.status()",
    summary: "Report the record store status",
    description: "Report the record store status, with a detail when degraded",
    input: [],
    output: [{ name: "value", type: "str", required: true }, {
      name: "detail",
      type: "str",
      required: false,
    }],
  },
];

/** One recorded call. */
export interface FakeCall {
  /** Which operation. */
  readonly op: "search" | "describe" | "execute";
  /** Its string argument. */
  readonly arg: string;
  /** The subject passed to execute, if any. */
  readonly subject?: Subject;
  /** The subject installed in context during the call. */
  readonly contextSubject?: Subject;
}

/** The fake service. */
export class FakeService implements Service {
  /** Every call, in order. */
  readonly calls: FakeCall[] = [];
  /** Abort reasons seen by `wait` executions. */
  readonly aborts: unknown[] = [];
  /** Limits the execute description may quote. */
  readonly limits = { maxSourceBytes: 65_536, maxExecutionTime: 5_000, maxExecutionSteps: 1_000_000 };

  /** Finds capabilities by substring; `fail <code>` queries reject. */
  search(query: string): SearchResponse {
    this.calls.push({ op: "search", arg: query, contextSubject: currentSubject() });
    if (query.startsWith("fail ")) {
      throw new CodeModeError(query.slice(5) as ErrorCode, "scripted search failure");
    }
    if (query.length > 256) throw new CodeModeError("resource_limit", "query too long");
    const q = query.trim().toLowerCase();
    const results = q === "" ? [] : FAKE_DESCRIPTIONS.filter((d) => d.description.toLowerCase().includes(q))
      .map(({ name, signature, summary }) => ({ name, signature, summary }));
    return { results, truncated: false };
  }

  /** Exact lookup. */
  describe(name: string): Description {
    this.calls.push({ op: "describe", arg: name, contextSubject: currentSubject() });
    const d = FAKE_DESCRIPTIONS.find((x) => x.name === name);
    if (d === undefined) throw new CodeModeError("not_found", `unknown capability ${name} (host detail)`);
    return d;
  }

  /** Scripted execution (see the module doc). */
  async execute(subject: Subject, source: string, options: ServiceExecuteOptions = {}): Promise<unknown> {
    this.calls.push({ op: "execute", arg: source, subject, contextSubject: currentSubject() });
    if (source.length > this.limits.maxSourceBytes) {
      throw new CodeModeError("resource_limit", "source too large (host detail)");
    }
    const [head, ...rest] = source.split(" ");
    switch (head) {
      case "fail": {
        const [code, ...detail] = rest;
        throw new CodeModeError(code as ErrorCode, `host-only message for ${code}`, {
          detail: detail.length > 0 ? detail.join(" ") : undefined,
          cause: new Error("secret cause"),
        });
      }
      case "throw":
        throw new Error("secret internal failure /etc/passwd");
      case "wait":
        return await new Promise((_, reject) => {
          const signal = options.signal;
          if (signal === undefined) return reject(new Error("no signal"));
          signal.addEventListener("abort", () => {
            this.aborts.push(signal.reason);
            reject(signal.reason);
          }, { once: true });
        });
      case "subject":
        return { subject: subject.id, context: currentSubject()?.id ?? null };
      case "json":
        return JSON.parse(rest.join(" "));
      default:
        return { echo: source };
    }
  }
}
