/**
 * "Pause notifications for an hour" from the tray. The hour is measured on the bank clock estimate
 * (`ServerClock.now()`, fed by the bank's Date headers), not the local wall clock: changing the
 * computer's clock neither ends nor stretches the pause, and time asleep counts (a monotonic clock
 * stops during sleep on macOS and Linux, which would stretch a pause across a suspend).
 */
import type { Platform } from '../infra/platform';

export const pauseMs = 60 * 60 * 1000;

export interface NotificationPause {
  pause(): void;
  resume(): void;
  /** When the pause ends (ms on the same clock), null when not paused. */
  pausedUntil(): number | null;
  isPaused(): boolean;
}

export function createNotificationPause(now: () => number, durationMs = pauseMs): NotificationPause {
  let until: number | null = null;
  const p: NotificationPause = {
    pause() {
      until = now() + durationMs;
    },
    resume() {
      until = null;
    },
    pausedUntil() {
      if (until !== null && now() >= until) until = null;
      return until;
    },
    isPaused: () => p.pausedUntil() !== null,
  };
  return p;
}

/** The platform with `notify` suppressed while paused (the badge still follows the counts). */
export function withNotificationPause(platform: Platform, pause: NotificationPause): Platform {
  return {
    ...platform,
    notify(notification) {
      if (pause.isPaused()) return;
      platform.notify(notification);
    },
  };
}
