/**
 * Follows the team server's change feed: one server-sent event stream
 * (`GET /v1/changes/stream?since=<last applied>`), each change applied in order and its number
 * stored durably before the next, so a workstation that was away (asleep, offline, closed for a
 * day) asks for exactly what it missed and the server replays it. When the stream ends or cannot
 * be opened it reconnects after a jittered backoff (1 s doubling to 60 s), sooner when told
 * (`wake`: back online, signed in again).
 */
import { Change } from '../../shared/team/schemas';
import { backoffDelay, type BackoffSchedule } from '../infra/backoff';
import type { Logger } from '../infra/log';
import { TeamNotSignedIn, type TeamHttp } from './api';
import { createSseParser } from './sse';

export type FeedState =
  { state: 'connected' } | { state: 'unreachable'; since: number; retryAt: number } | { state: 'signed-out' };

export interface ChangeFeedDeps {
  http: TeamHttp;
  /** The last change number applied (stored durably by `apply`). */
  lastSeq(): number;
  /** Applies changes in order and stores the last number before it resolves. */
  apply(change: Change): Promise<void> | void;
  onState(state: FeedState): void;
  /** A `presence` event: who is at an object now (not numbered, not replayed). */
  onPresence?(data: unknown): void;
  log: Logger;
  retry?: BackoffSchedule;
}

export interface ChangeFeed {
  start(): void;
  /** Reconnect now (back online, signed in again). */
  wake(): void;
  stop(): Promise<void>;
}

export function createChangeFeed(deps: ChangeFeedDeps): ChangeFeed {
  const retry = deps.retry ?? { baseMs: 1_000, maxMs: 60_000 };
  let running = false;
  let loop: Promise<void> | null = null;
  let controller: AbortController | null = null;
  let wakeUp: (() => void) | null = null;
  let failures = 0;
  let downSince: number | null = null;

  const pause = (ms: number): Promise<void> =>
    new Promise((ok) => {
      const t = setTimeout(() => {
        wakeUp = null;
        ok();
      }, ms);
      t.unref?.();
      wakeUp = () => {
        clearTimeout(t);
        wakeUp = null;
        ok();
      };
    });

  /** One connection: resolves when the stream ends; throws when it could not be opened. */
  const follow = async (signal: AbortSignal): Promise<void> => {
    const res = await deps.http.open(
      `/v1/changes/stream?since=${deps.lastSeq()}`,
      { accept: 'text/event-stream' },
      signal,
    );
    if (!res.ok || !res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel().catch(() => undefined);
      throw new Error(`the change stream answered ${res.status}`);
    }
    failures = 0;
    downSince = null;
    deps.onState({ state: 'connected' });
    let chain: Promise<void> = Promise.resolve();
    let broken: unknown = null;
    const parser = createSseParser((event) => {
      if (event.event === 'presence') {
        try {
          deps.onPresence?.(JSON.parse(event.data));
        } catch (err) {
          deps.log.warn('team: a presence event was not JSON', { error: err });
        }
        return;
      }
      if (event.event !== 'change') return;
      let change: Change;
      try {
        change = Change.parse(JSON.parse(event.data));
      } catch (err) {
        deps.log.warn('team: a change of unexpected shape was skipped', { error: err });
        return;
      }
      chain = chain.then(async () => {
        if (broken || change.seq <= deps.lastSeq()) return;
        try {
          await deps.apply(change);
        } catch (err) {
          broken = err;
        }
      });
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    // Stopping cancels the reader itself, not only the fetch's signal: Node's fetch can lose the
    // link from the signal to a request once the Request object is garbage collected
    // (nodejs/node#55428), and the stream then keeps reading keep-alives forever; cancelling the
    // reader cancels the body and closes the connection whatever became of the signal.
    const onAbort = (): void => void reader.cancel().catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
        await chain;
        if (broken) throw broken;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      await reader.cancel().catch(() => undefined);
    }
  };

  const run = async (): Promise<void> => {
    while (running) {
      controller = new AbortController();
      try {
        await follow(controller.signal);
        if (!running) return;
        deps.log.info('team: the change stream ended; reconnecting');
      } catch (err) {
        if (!running) return;
        if (err instanceof TeamNotSignedIn) {
          deps.onState({ state: 'signed-out' });
          running = false;
          return;
        }
        deps.log.info('team: the change stream is away', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
      failures += 1;
      downSince ??= Date.now();
      const wait = backoffDelay(failures, retry);
      deps.onState({ state: 'unreachable', since: downSince, retryAt: Date.now() + wait });
      await pause(wait);
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      failures = 0;
      loop = run().finally(() => {
        loop = null;
      });
    },
    wake() {
      failures = 0;
      wakeUp?.();
    },
    async stop() {
      running = false;
      controller?.abort();
      wakeUp?.();
      await loop;
    },
  };
}
