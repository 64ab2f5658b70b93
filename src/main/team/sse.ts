/**
 * A server-sent events parser (the WHATWG "event stream" interpretation): fed text as it arrives
 * in chunks of any size, it answers each complete event with its `id`, `event` and `data`.
 * Lines end in LF, CR or CRLF (a CR at the end of a chunk waits for the next one); comment lines
 * (`: keep-alive`) are ignored; `data` lines join with LF; a field without a colon has an empty
 * value; one leading space after the colon is dropped; an id containing NUL is ignored.
 *
 * No SSE library is installed (eventsource, eventsource-parser are not in the tree) and main must
 * set an Authorization header, which the browser-style EventSource cannot; this is the spec's
 * parsing algorithm and nothing else, with its own unit tests.
 */
export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
}

export interface SseParser {
  feed(chunk: string): void;
  /** The last event id seen (kept across events, as the spec says). */
  readonly lastEventId: string | null;
}

export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let data: string[] = [];
  let eventType = '';
  let lastEventId: string | null = null;
  let sawData = false;

  const dispatch = (): void => {
    if (sawData) onEvent({ id: lastEventId, event: eventType || 'message', data: data.join('\n') });
    data = [];
    eventType = '';
    sawData = false;
  };

  const line = (text: string): void => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      sawData = true;
    } else if (field === 'event') eventType = value;
    else if (field === 'id') {
      if (!value.includes('\0')) lastEventId = value;
    }
    // `retry` and unknown fields: ignored (the follower keeps its own backoff).
  };

  return {
    feed(chunk) {
      buffer += chunk;
      let start = 0;
      for (let i = 0; i < buffer.length; i += 1) {
        const c = buffer[i];
        if (c !== '\n' && c !== '\r') continue;
        if (c === '\r' && i === buffer.length - 1) break; // a CRLF may be split across chunks
        line(buffer.slice(start, i));
        if (c === '\r' && buffer[i + 1] === '\n') i += 1;
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
