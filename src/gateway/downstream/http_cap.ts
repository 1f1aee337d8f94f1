/**
 * The result size cap for http downstreams, enforced while the response is read: a `fetch` wrapper for
 * the SDK's Streamable HTTP client transport. A JSON answer is read up to the cap and no further; an
 * SSE stream is passed on one whole event at a time, each event held only up to the cap, and the rest
 * of an over-long event is read and discarded as it arrives. Either way an over-long answer is replaced
 * by an error answer (`result too large`) for its request id, so its call ends at once and the session
 * stays usable.
 *
 * @module
 */
import { oversizedAnswer, TopLevelIdScanner } from "./frame_cap.ts";

const encoder = new TextEncoder();
const NEWLINE = 0x0a;
const CR = 0x0d;

/** The headers of a rebuilt response: its length and encoding are those of the new body, not the old. */
function rebuiltHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  out.delete("content-length");
  out.delete("content-encoding");
  return out;
}

/** The JSON-RPC id of the request a `fetch` sends, when its body is one JSON-RPC request. */
function requestId(body: unknown): string | number | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const id = message?.id;
    if (typeof message?.method === "string" && (typeof id === "string" || Number.isSafeInteger(id))) {
      return id as string | number;
    }
  } catch {
    // Not JSON: nothing to attribute.
  }
  return undefined;
}

/**
 * Wraps `inner` so that no response part longer than `limit()` bytes is ever held; `onOversized` is told
 * the request id and the bytes read of each answer replaced.
 */
export function capFetch(
  inner: typeof fetch,
  limit: () => number,
  onOversized: (id: string | number, bytes: number) => void,
): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.body === null) return response;
    const type = (response.headers.get("content-type") ?? "").toLowerCase();
    if (type.includes("text/event-stream")) {
      return new Response(response.body.pipeThrough(sseCap(limit, onOversized)), {
        status: response.status,
        statusText: response.statusText,
        headers: rebuiltHeaders(response.headers),
      });
    }
    if (!type.includes("application/json")) return response;
    return await cappedJson(response, requestId(init?.body), limit(), onOversized);
  };
}

/** Reads a JSON answer up to `max` bytes; past it, stops reading and answers with the error instead. */
async function cappedJson(
  response: Response,
  id: string | number | undefined,
  max: number,
  onOversized: (id: string | number, bytes: number) => void,
): Promise<Response> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel().catch(() => {});
      if (id === undefined) throw new Error(`downstream answer exceeds ${max} bytes`);
      onOversized(id, total);
      return Response.json(oversizedAnswer(id), {
        status: response.status,
        headers: rebuiltHeaders(response.headers),
      });
    }
    parts.push(value);
  }
  return new Response(new Blob(parts as BlobPart[]), {
    status: response.status,
    statusText: response.statusText,
    headers: rebuiltHeaders(response.headers),
  });
}

/**
 * A byte stream transform for SSE that forwards whole events only, holding at most `limit()` bytes of
 * one; an event past the limit is discarded as it is read and replaced by the error answer for the id
 * its JSON carries (an event without a usable id is dropped).
 */
function sseCap(
  limit: () => number,
  onOversized: (id: string | number, bytes: number) => void,
): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let discarding: TopLevelIdScanner | undefined;
  // Whether the current line is empty so far (an empty line ends an event); `\r` does not count.
  let lineEmpty = true;
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        const content = newline === -1 ? piece : piece.subarray(0, piece.length - 1);
        if (content.length > 0 && !(content.length === 1 && content[0] === CR)) lineEmpty = false;
        if (discarding !== undefined) {
          discarding.push(piece);
        } else {
          held.push(piece);
          heldBytes += piece.length;
          if (heldBytes > limit()) {
            discarding = new TopLevelIdScanner();
            for (const p of held) discarding.push(p);
            held = [];
            heldBytes = 0;
          }
        }
        start = end;
        if (newline === -1) break;
        if (lineEmpty) {
          // The end of an event: pass it on whole, or its replacement.
          if (discarding !== undefined) {
            const id = discarding.id;
            if (id !== undefined && !discarding.hasMethod) {
              onOversized(id, discarding.bytes);
              controller.enqueue(
                encoder.encode(`event: message\ndata: ${JSON.stringify(oversizedAnswer(id))}\n\n`),
              );
            }
            discarding = undefined;
          } else {
            for (const p of held) controller.enqueue(p);
          }
          held = [];
          heldBytes = 0;
        }
        lineEmpty = true;
      }
    },
    flush(controller) {
      if (discarding === undefined) { for (const p of held) controller.enqueue(p); }
    },
  });
}
