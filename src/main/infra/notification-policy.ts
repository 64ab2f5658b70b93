/**
 * The one notification policy of main: every native notification passes through it.
 *
 * - Text: titles and bodies are cleaned like names (NFC, no bidi, format or control characters)
 *   and cut to a length a notification shows, so bank-supplied text cannot spoof or flood one.
 * - Per source (locker expiry, deadline reminders, …: the `source` the sender names): at most one
 *   notification per interval (default 10 s). What arrives meanwhile is held and, at the end of
 *   the interval, shown as one: itself when alone, else the sender's summary of all of them
 *   ("3 locker documents expire soon"), so a burst of changes never becomes a burst of toasts.
 * - Per object (`object`: a document, an RFI): a later notification about the same object while
 *   one is held replaces it, and one shown within the interval is not shown again.
 * Notifications without a source pass as they are (after the text cleaning).
 */
import { cleanName } from '../../shared/names';
import type { NativeNotification, Platform } from './platform';

export type PolicyNotification = NativeNotification;

export interface NotificationPolicyOptions {
  intervalMs?: number;
  now?: () => number;
}

export interface NotificationPolicy {
  notify(n: PolicyNotification): void;
  /** Shows what is held now (tests, quit). */
  flush(): void;
  dispose(): void;
}

const TITLE_MAX = 120;

/** A body: like a name, but its line breaks kept. */
function cleanText(text: string, max: number): string {
  return text
    .split(/\r\n|\r|\n|\u2028|\u2029/u)
    .map((line) => cleanName(line, max))
    .join('\n')
    .slice(0, max);
}
const BODY_MAX = 400;

export function createNotificationPolicy(
  show: (n: NativeNotification) => void,
  o: NotificationPolicyOptions = {},
): NotificationPolicy {
  const interval = o.intervalMs ?? 10_000;
  const now = o.now ?? Date.now;
  interface SourceState {
    lastShownAt: number;
    held: Map<string, PolicyNotification>;
    recent: Map<string, number>;
    timer: ReturnType<typeof setTimeout> | null;
  }
  const sources = new Map<string, SourceState>();
  let seq = 0;

  const out = (n: NativeNotification): void => {
    show({
      title: cleanName(n.title, TITLE_MAX) || 'Treasury Desk',
      body: cleanText(n.body, BODY_MAX),
      ...(n.onClick ? { onClick: n.onClick } : {}),
    });
  };

  const release = (name: string, s: SourceState): void => {
    s.timer = null;
    const held = [...s.held.values()];
    s.held.clear();
    if (held.length === 0) return;
    s.lastShownAt = now();
    for (const h of held) if (h.object) s.recent.set(h.object, s.lastShownAt);
    const last = held[held.length - 1]!;
    if (held.length === 1 || !last.coalesce) {
      out(
        held.length === 1 ? last : { title: last.title, body: `${last.body} (and ${held.length - 1} more)` },
      );
    } else out(last.coalesce(held.length));
    void name;
  };

  return {
    notify(n) {
      if (!n.source) {
        out(n);
        return;
      }
      let s = sources.get(n.source);
      if (!s) {
        s = { lastShownAt: -Infinity, held: new Map(), recent: new Map(), timer: null };
        sources.set(n.source, s);
      }
      const t = now();
      for (const [obj, at] of s.recent) if (t - at >= interval) s.recent.delete(obj);
      if (n.object && s.recent.has(n.object) && !s.held.has(n.object)) return;
      if (s.held.size === 0 && t - s.lastShownAt >= interval) {
        s.lastShownAt = t;
        if (n.object) s.recent.set(n.object, t);
        out(n);
        return;
      }
      s.held.set(n.object ?? `#${++seq}`, n);
      if (!s.timer) {
        const state = s;
        const source = n.source;
        s.timer = setTimeout(() => release(source, state), Math.max(0, s.lastShownAt + interval - t));
        s.timer.unref?.();
      }
    },
    flush() {
      for (const [name, s] of sources) {
        if (s.timer) clearTimeout(s.timer);
        release(name, s);
      }
    },
    dispose() {
      for (const s of sources.values()) {
        if (s.timer) clearTimeout(s.timer);
        s.timer = null;
        s.held.clear();
      }
    },
  };
}

/** The platform with every notification going through the policy. */
export function withNotificationPolicy(
  platform: Platform,
  o: NotificationPolicyOptions = {},
): { platform: Platform; policy: NotificationPolicy } {
  const policy = createNotificationPolicy((n) => platform.notify(n), o);
  // The same platform object underneath (its other members, and a test double's records, stay its own).
  const policed = Object.create(platform) as Platform;
  policed.notify = (n) => policy.notify(n);
  return { platform: policed, policy };
}
