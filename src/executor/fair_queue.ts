/**
 * The waiting room of a pool: executions queued per subject, served round-robin across subjects.
 *
 * @module
 */
/** What waits: anything that knows its request's subject. */
export interface Queued {
  /** The request, for its subject. */
  readonly request: { readonly subjectId: string };
}

/** Waiting executions by subject; the map's order is the round-robin rotation. */
export class FairQueue<T extends Queued> {
  readonly #bySubject = new Map<string, T[]>();
  #size = 0;

  /** Executions waiting. */
  get size(): number {
    return this.#size;
  }

  /** Executions of `subject` waiting. */
  count(subject: string): number {
    return this.#bySubject.get(subject)?.length ?? 0;
  }

  /** Adds `exec` behind the other executions of its subject (a new subject joins the rotation last). */
  push(exec: T): void {
    const s = exec.request.subjectId;
    const list = this.#bySubject.get(s);
    if (list === undefined) this.#bySubject.set(s, [exec]);
    else list.push(exec);
    this.#size++;
  }

  /** Removes `exec` (an execution that gave up waiting). */
  remove(exec: T): void {
    const s = exec.request.subjectId;
    const list = this.#bySubject.get(s);
    const i = list?.indexOf(exec) ?? -1;
    if (list === undefined || i < 0) return;
    list.splice(i, 1);
    this.#size--;
    if (list.length === 0) this.#bySubject.delete(s);
  }

  /** The subjects with waiting executions, in rotation order. */
  subjects(): string[] {
    return [...this.#bySubject.keys()];
  }

  /**
   * The oldest waiter of the first subject in rotation accepted by `ok` (given the subject and that
   * waiter); that subject moves back.
   */
  take(ok: (subject: string, head: T) => boolean): T | undefined {
    for (const [s, list] of this.#bySubject) {
      if (!ok(s, list[0])) continue;
      const exec = list.shift()!;
      this.#size--;
      this.#bySubject.delete(s);
      if (list.length > 0) this.#bySubject.set(s, list);
      return exec;
    }
    return undefined;
  }

  /** Removes and returns every waiting execution. */
  drain(): T[] {
    const all = [...this.#bySubject.values()].flat();
    this.#bySubject.clear();
    this.#size = 0;
    return all;
  }
}
