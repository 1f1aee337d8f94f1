/**
 * One server-sent events stream with a bounded send buffer. The HTTP server pulls from the stream as
 * fast as the socket takes bytes; a reader that falls behind by more than the buffer is dropped (its
 * stream ends) rather than letting the gateway's memory grow with it.
 *
 * @module
 */

const ENCODER = new TextEncoder();

/** Encodes one event (`data` is JSON text without newlines). */
export function encodeEvent(event: string, data: string): Uint8Array {
  return ENCODER.encode(`event: ${event}\ndata: ${data}\n\n`);
}

/** An SSE stream; {@link SseStream.body} is the response body. */
export class SseStream {
  /** The response body. */
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #open = true;
  readonly #onClose: () => void;
  readonly #max: number;

  /** Creates a stream that buffers at most `maxBufferBytes` unsent bytes; `onClose` is called once. */
  constructor(maxBufferBytes: number, onClose: () => void) {
    this.#onClose = onClose;
    this.#max = maxBufferBytes;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => this.#end(),
    }, { highWaterMark: maxBufferBytes, size: (chunk) => chunk.byteLength });
  }

  /** Whether the stream is still open. */
  get open(): boolean {
    return this.#open;
  }

  /**
   * Queues an encoded event. Returns `false` (and ends the stream) when the reader is so far behind
   * that the event would overflow the buffer.
   */
  send(chunk: Uint8Array): boolean {
    if (!this.#open) return false;
    const room = this.#controller.desiredSize ?? 0;
    // An event larger than the whole buffer still goes out when nothing else waits.
    if (chunk.byteLength > room && room < this.#max) {
      this.close();
      return false;
    }
    this.#controller.enqueue(chunk);
    return true;
  }

  /** Ends the stream. */
  close(): void {
    if (!this.#open) return;
    try {
      this.#controller.close();
    } catch {
      // Already cancelled by the reader.
    }
    this.#end();
  }

  #end(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#onClose();
  }
}
