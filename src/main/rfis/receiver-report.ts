/**
 * The webhook receiver's refusal log and status push, coalesced against a local process flooding
 * it: at most one log line (with the count per reason) and one status push per interval.
 */

import type { Logger } from '../infra/log';

export interface ReceiverReportOptions {
  log: Logger;
  onStatus?(): void;
  /** Minimum time between two log lines and two status pushes. */
  intervalMs: number;
}

export interface ReceiverReport {
  /** A request was refused for this reason (the status changed too). */
  refused(reason: string): void;
  /** A duplicate event id was acknowledged (the status changed too). */
  duplicate(): void;
  /** The status changed: pushed now if the last push is old enough, else when the interval ends. */
  changed(): void;
  /** Pushes the status at once (listening, closed). */
  pushStatus(): void;
  /** Reports what is pending now and stops the timer (closing). */
  flush(): void;
}

export function createReceiverReport(options: ReceiverReportOptions): ReceiverReport {
  let refusedSince = new Map<string, number>();
  let duplicatesSince = 0;
  let statusDirty = false;
  let lastReport = -Infinity;
  let timer: NodeJS.Timeout | null = null;

  const pushStatus = (): void => {
    try {
      options.onStatus?.();
    } catch (err) {
      options.log.warn('webhook: status listener failed', { error: err });
    }
  };

  const report = (): void => {
    timer = null;
    lastReport = Date.now();
    if (refusedSince.size > 0) {
      const reasons = Object.fromEntries(refusedSince);
      const count = [...refusedSince.values()].reduce((a, b) => a + b, 0);
      refusedSince = new Map();
      options.log.warn('webhook: requests refused', { count, reasons });
    }
    if (duplicatesSince > 0) {
      options.log.info('webhook: duplicate event ids, not processed again', { count: duplicatesSince });
      duplicatesSince = 0;
    }
    if (statusDirty) {
      statusDirty = false;
      pushStatus();
    }
  };

  const changed = (): void => {
    statusDirty = true;
    if (timer) return;
    const wait = lastReport + options.intervalMs - Date.now();
    if (wait <= 0) report();
    else {
      timer = setTimeout(report, Math.max(0, wait));
      timer.unref?.();
    }
  };

  return {
    refused(reason) {
      refusedSince.set(reason, (refusedSince.get(reason) ?? 0) + 1);
      changed();
    },
    duplicate() {
      duplicatesSince++;
      changed();
    },
    changed,
    pushStatus,
    flush() {
      if (!timer) return;
      clearTimeout(timer);
      report();
    },
  };
}
