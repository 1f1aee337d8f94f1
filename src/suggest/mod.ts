/**
 * "Did you mean" for the names a model gets wrong: a keyword argument, a capability or a namespace. The
 * candidates are always names the caller can use (a capability's declared keywords, the capabilities of
 * the catalog its program runs with), so a suggestion never reveals a name it may not call. Shared by
 * the host's binding (`src/core/binding.ts`), the sandbox's argument check and the program hints. A folder
 * of its own at the bottom of the dependency order: the sandbox, which loads nothing else of the host's,
 * imports it as well as the core.
 *
 * @module
 */

/** Most names an "accepted" list shows; the rest are counted. */
export const MAX_LISTED_NAMES = 12;

// Names longer than this are never suggested for (and never compared cell by cell): a program's
// megabyte-long keyword costs a length check, not a quadratic table.
const MAX_COMPARED = 128;

/** Lower-cases ASCII letters and drops underscores: `Customer_ID` and `customerid` are one spelling. */
function fold(s: string): string {
  return s.replace(/_/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Edit distance counting an insertion, a deletion, a substitution or a swap of two adjacent characters
 * as one edit (`cusotmer` is one edit from `customer`).
 */
export function editDistance(a: string, b: string): number {
  const n = a.length, m = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const row = [i];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[m];
}

function words(s: string): string[] {
  return s.toLowerCase().split(/[_.]+/).filter((w) => w !== "");
}

/**
 * The candidate nearest to `name`, or `undefined`. Case and underscores are ignored; a candidate within
 * a third of the name's length in edits is suggested, the closest first and ties by
 * order. Failing that, a candidate whose words (split at `_` and `.`) all appear in `name`, or the
 * reverse, is suggested (`customer_id` → `id`, `order` → `order_id`), the shortest difference first.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  if (name.length === 0 || name.length > MAX_COMPARED) return undefined;
  const x = fold(name);
  // A third of the name in edits: `crn` → `crm`, but a two-letter name only by case or underscores.
  const max = Math.floor(x.length / 3);
  let best: string | undefined;
  let bestD = Infinity;
  const list = [...candidates].filter((c) => c !== name && c.length <= MAX_COMPARED);
  for (const c of list) {
    const d = editDistance(x, fold(c));
    if (d <= max && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  if (best !== undefined) return best;
  const mine = new Set(words(name));
  let bestGap = Infinity;
  for (const c of list) {
    const theirs = words(c);
    if (theirs.length === 0 || mine.size === 0) continue;
    const inMine = theirs.every((w) => mine.has(w));
    const inTheirs = [...mine].every((w) => theirs.includes(w));
    if (!inMine && !inTheirs) continue;
    const gap = Math.abs(theirs.length - mine.size);
    if (gap < bestGap) {
      best = c;
      bestGap = gap;
    }
  }
  return best;
}

/** `a, b, c` with at most {@link MAX_LISTED_NAMES} names, then `... (N more)`. */
export function listNames(names: readonly string[]): string {
  if (names.length <= MAX_LISTED_NAMES) return names.join(", ");
  return `${names.slice(0, MAX_LISTED_NAMES).join(", ")}, ... (${names.length - MAX_LISTED_NAMES} more)`;
}

/**
 * What follows `unexpected keyword argument "k"` (or `unexpected field p."k"`, with `what` "fields"): the
 * nearest accepted name and the accepted names, e.g. ` (did you mean id?); accepted: id, limit`, or
 * `; it takes no arguments` when there are none.
 */
export function unexpectedNameHint(
  name: string,
  accepted: readonly string[],
  what: "keyword arguments" | "fields" = "keyword arguments",
): string {
  if (accepted.length === 0) return what === "fields" ? "; it has no fields" : "; it takes no arguments";
  const near = nearestName(name, accepted);
  return `${near === undefined ? "" : ` (did you mean ${near}?)`}; accepted ${what}: ${listNames(accepted)}`;
}
