/**
 * The methods that return iterable views: `string.elems`, `elem_ords`, `codepoints`, `codepoint_ords`
 * and `bytes.elems` (the views themselves live in `../values/string_views.ts`).
 *
 * @module
 */
import {
  type Bytes,
  bytesElems,
  checkPositional,
  type Kwargs,
  stringCodepointOrds,
  stringCodepoints,
  stringElemOrds,
  stringElems,
  type Thread,
  type Value,
} from "../values/mod.ts";
import type { MethodFn } from "./mod.ts";

function view(name: string, make: (s: string) => Value): [string, MethodFn] {
  return [name, (_thread: Thread, recv: Value, args: Value[], kwargs: Kwargs) => {
    checkPositional(name, args, kwargs, 0, 0);
    return make(recv as string);
  }];
}

/** The string methods that return views. */
export const STRING_VIEW_METHODS: [string, MethodFn][] = [
  view("codepoint_ords", stringCodepointOrds),
  view("codepoints", stringCodepoints),
  view("elem_ords", stringElemOrds),
  view("elems", stringElems),
];

/** The bytes method table. */
export const BYTES_METHODS: ReadonlyMap<string, MethodFn> = new Map([
  ["elems", (_thread: Thread, recv: Value, args: Value[], kwargs: Kwargs): Value => {
    checkPositional("elems", args, kwargs, 0, 0);
    return bytesElems((recv as Bytes).data);
  }],
]);
