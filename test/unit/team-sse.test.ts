import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from '../../src/main/team/sse';

function parse(chunks: string[]): { events: SseEvent[]; lastEventId: string | null } {
  const events: SseEvent[] = [];
  const p = createSseParser((e) => events.push(e));
  for (const c of chunks) p.feed(c);
  return { events, lastEventId: p.lastEventId };
}

describe('the server-sent events parser', () => {
  it('reads events split anywhere across chunks, with LF, CR and CRLF line ends', () => {
    const text =
      ': team change feed\n\nid: 7\nevent: change\ndata: {"a":1}\n\nid: 8\r\nevent: change\r\ndata: x\r\n\r\ndata: y\rdata: z\r\r\n';
    const whole = parse([text]);
    expect(whole.events).toEqual([
      { id: '7', event: 'change', data: '{"a":1}' },
      { id: '8', event: 'change', data: 'x' },
      { id: '8', event: 'message', data: 'y\nz' },
    ]);
    // Every split point gives the same events (a CRLF cut in two included).
    for (let cut = 1; cut < text.length; cut += 1)
      expect(parse([text.slice(0, cut), text.slice(cut)]).events).toEqual(whole.events);
    expect(parse([...text]).events).toEqual(whole.events);
  });

  it('ignores comments and unknown fields, keeps a value’s colons, drops one leading space only, and dispatches nothing without data', () => {
    const { events, lastEventId } = parse([
      ': keep-alive\n\nretry: 10\nfoo: bar\n\nid: 3\n\ndata:  two spaces: kept\ndata\n\nid: bad\0id\ndata: z\n\n',
    ]);
    expect(events).toEqual([
      { id: '3', event: 'message', data: ' two spaces: kept\n' },
      { id: '3', event: 'message', data: 'z' },
    ]);
    expect(lastEventId).toBe('3');
  });

  it('holds an unfinished event until its blank line arrives', () => {
    const events: SseEvent[] = [];
    const p = createSseParser((e) => events.push(e));
    p.feed('id: 1\ndata: a\n');
    expect(events).toEqual([]);
    p.feed('\n');
    expect(events).toEqual([{ id: '1', event: 'message', data: 'a' }]);
  });
});
