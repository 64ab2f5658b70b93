/**
 * The bank's clock as this window knows it: the offset between the bank's time (learned by main
 * from the bank's Date headers, `session.clock`) and this computer's clock. Deadlines, bands and
 * quote validity are the bank's, so they are measured against `bankNow()`, never against a
 * workstation clock that may be minutes (or, with a moved sandbox clock, days) away.
 */

import { create } from 'zustand';
import { call } from './desk';
import { sharedSubscription } from './events';

export interface BankClockState {
  /** Bank time − Date.now() in this window, in ms (0 until the bank has answered once). */
  offsetMs: number;
  /** Whether the offset comes from the bank (false: this computer's clock stands in). */
  known: boolean;
}

export const useBankClock = create<BankClockState>(() => ({ offsetMs: 0, known: false }));

/** Now in the bank's clock (ms since the epoch). */
export function bankNow(): number {
  return Date.now() + useBankClock.getState().offsetMs;
}

/** Learns the offset from a bank time main reported with an answer (ISO 8601). */
export function learnBankTime(serverNowIso: string): void {
  const server = Date.parse(serverNowIso);
  if (Number.isFinite(server)) useBankClock.setState({ offsetMs: server - Date.now(), known: true });
}

/** Asks main for its estimate of the bank's clock; keeps the last one when main cannot say. */
export async function refreshBankClock(): Promise<void> {
  try {
    const c = await call('session.clock', undefined);
    if (c.samples > 0 && Number.isFinite(c.offsetMs))
      useBankClock.setState({ offsetMs: c.offsetMs, known: true });
  } catch {
    // Not known yet: this computer's clock stands in until the bank answers.
  }
}

const REFRESH_MS = 60_000;

/** Keeps the offset fresh while a screen that measures against the bank's clock is mounted. */
export const bankClockSubscription = sharedSubscription(() => {
  void refreshBankClock();
  const t = setInterval(() => void refreshBankClock(), REFRESH_MS);
  return () => clearInterval(t);
});
