/**
 * Who may take a slot of a pool, and which idle sandbox gives way: the pools' rules for the subjects'
 * shares and for reserved slots (scheduler.ts does the rest).
 *
 * Reserved slots: executions hold at most `max - reserved` slots, but for those of light subjects
 * (holding no slot and with no other execution waiting), which may use the last `reserved` ones. A slot
 * cannot be taken back from a run (it may hold it for its whole time budget), so without them a few
 * subjects flooding long programs fill every slot and a light subject's one short program waits seconds
 * for a run to end. With them it finds a slot, and its own idle sandbox, which the flood may not evict
 * ({@link idleToEnd}), at once.
 *
 * @module
 */

/** What the rules read of a pool at one moment. */
export interface Admission {
  /** The slot bound. */
  readonly max: number;
  /** Slots kept for light subjects. */
  readonly reserved: number;
  /** Most slots one subject holds. */
  readonly maxPerSubject: number;
  /** Slots held by executions, all subjects together. */
  readonly held: number;
  /** Slots held per subject (absent: none). */
  readonly active: ReadonlyMap<string, number>;
  /** Executions of a subject waiting. */
  queued(subject: string): number;
}

/** Whether `subject` may use a reserved slot: it holds none and has no other execution waiting. */
export function isLight(a: Admission, subject: string): boolean {
  return a.reserved > 0 && !a.active.has(subject) && a.queued(subject) <= 1;
}

/** Whether `subject` may start another execution now: under its share, and off the reserved slots. */
export function mayStart(a: Admission, subject: string): boolean {
  if ((a.active.get(subject) ?? 0) >= a.maxPerSubject) return false;
  return a.held < a.max - a.reserved || isLight(a, subject);
}

/**
 * How many more slots the waiting executions of `subjects` could use now: a light subject's one, and
 * the others' within their shares and what the reserve leaves.
 */
export function slotsWanted(a: Admission, subjects: Iterable<string>): number {
  let shared = Math.max(0, a.max - a.reserved - a.held);
  let need = 0;
  for (const s of subjects) {
    const want = Math.min(a.queued(s), Math.max(0, a.maxPerSubject - (a.active.get(s) ?? 0)));
    if (want > 0 && isLight(a, s)) {
      need++;
      continue;
    }
    const take = Math.min(want, shared);
    shared -= take;
    need += take;
  }
  return need;
}

/**
 * The idle sandbox to end for a waiting execution: the least recently used, sparing the `reserved`
 * most recently used ones of subjects holding no slot (the light subjects the reserve is for).
 */
export function idleToEnd<S extends { readonly lastUsed: number }>(
  idle: ReadonlyMap<string, readonly S[]>,
  a: Admission,
): S | undefined {
  const spared = new Set<S>();
  if (a.reserved > 0) {
    const resting: S[] = [];
    for (const [s, list] of idle) if (!a.active.has(s)) resting.push(...list);
    resting.sort((x, y) => y.lastUsed - x.lastUsed);
    for (const sb of resting.slice(0, a.reserved)) spared.add(sb);
  }
  let best: S | undefined;
  for (const list of idle.values()) {
    for (const sb of list) {
      if (!spared.has(sb) && (best === undefined || sb.lastUsed < best.lastUsed)) best = sb;
    }
  }
  return best;
}
