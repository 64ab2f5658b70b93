/**
 * The queue page's timing, shared by the bench suites that drive the RFI queue in Chromium: the
 * page-side scripts (a search keystroke, a click, scroll frames, idle frames, one rfis.list, the
 * load marks) and the statistics. Each script returns the main-thread time of the update it
 * causes, measured in the page, so stalls of the Node process do not count.
 */
import type { Page } from '@playwright/test';

export const FRAME_MS = 1000 / 60;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}
export function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] ?? NaN;
}

/**
 * Page-side scripts, as text: this file is type-checked as Node code (no DOM types), and they run
 * in Chromium.
 */
export const SEARCH_SCRIPT = `async ({ value }) => {
  const el = document.querySelector('[role="search"] input[type="search"]');
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  const t0 = performance.now();
  setter.call(el, value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
  // React renders discrete updates synchronously or in a microtask queued during the event:
  // let those run, then force layout of the rows.
  await Promise.resolve();
  await Promise.resolve();
  void document.querySelector('[data-testid="rfi-list"] [data-testid="rfi-row"]:last-child')?.getBoundingClientRect();
  return performance.now() - t0;
}`;
/** A click on a control (a status count button, a listbox option), as the analyst's click. */
export const CLICK_SCRIPT = `async ({ selector }) => {
  const el = document.querySelector(selector);
  if (!el) throw new Error('nothing at ' + selector);
  const t0 = performance.now();
  el.click();
  await Promise.resolve();
  await Promise.resolve();
  void document.querySelector('[data-testid="rfi-list"] [data-testid="rfi-row"]:last-child')?.getBoundingClientRect();
  return performance.now() - t0;
}`;
export const SCROLL_SCRIPT = `async () => {
  const list = document.querySelector('[data-testid="rfi-list"]');
  const frame = [];
  const sync = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    list.scrollTop += 1500;
    list.dispatchEvent(new Event('scroll'));
    // The virtualizer renders synchronously on scroll; force style and layout of the new rows.
    void list.querySelector('[data-testid="rfi-row"]:last-child')?.getBoundingClientRect();
    sync.push(performance.now() - t);
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    frame.push(performance.now() - t);
  }
  return { frame, sync };
}`;
export const IDLE_FRAME_SCRIPT = `async () => {
  const out = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    out.push(performance.now() - t);
  }
  return out;
}`;
export const LIST_SCRIPT = `async () => {
  const t = performance.now();
  await window.desk.invoke('rfis.list', undefined);
  return performance.now() - t;
}`;
export const MARKS_SCRIPT = `() => ({ firstRows: window.__firstRowAt, firstRender: window.__allRowsAt })`;
/** How many RFIs the queue says it holds once loaded ("… of 10,000 RFIs": grouped as shown), or null. */
const LOADED_COUNT_SCRIPT = `() => {
  const text = document.querySelector('[data-testid="rfi-visible-count"]')?.textContent ?? '';
  const m = /of ([\\d.,\\u00a0\\u202f ]+) RFI/.exec(text);
  return m ? Number(m[1].replace(/[^0-9]/g, '')) : null;
}`;

/**
 * Waits until the queue says all `n` RFIs are loaded. Polled through page.evaluate (the page's CSP
 * allows no eval, which a string predicate given to waitForFunction would need), and the count is
 * read as shown, with its digit grouping.
 */
export async function waitForLoaded(page: Page, n: number, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: number | null = null;
  while (Date.now() < until) {
    last = await run<number | null>(page, LOADED_COUNT_SCRIPT);
    if (last === n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(
    `the queue did not load its ${n} RFIs within ${timeoutMs} ms (it says ${last ?? 'nothing yet'})`,
  );
}

export function run<T>(page: Page, script: string, arg?: unknown): Promise<T> {
  return page.evaluate(`(${script})(${arg === undefined ? '' : JSON.stringify(arg)})`) as Promise<T>;
}

/** Types into the queue's search as a user would and answers the synchronous time of the update. */
export function timedSearch(page: Page, value: string): Promise<number> {
  return run<number>(page, SEARCH_SCRIPT, { value });
}

/** Clicks what the selector names and answers the synchronous time of the update. */
export function timedClick(page: Page, selector: string): Promise<number> {
  return run<number>(page, CLICK_SCRIPT, { selector });
}

/** Installs the load marks read by MARKS_SCRIPT (first row on screen, every row filterable). */
export async function markQueueLoad(page: Page): Promise<void> {
  await page.addInitScript(`
        new MutationObserver((_, obs) => {
          const w = window;
          if (w.__firstRowAt === undefined && document.querySelector('[data-testid="rfi-row"]')) {
            w.__firstRowAt = performance.now();
          }
          const t = document.querySelector('[data-testid="rfi-visible-count"]')?.textContent ?? '';
          // Counts are grouped from 1,000 on ("10,000 of 10,000 RFIs").
          if (w.__allRowsAt === undefined && /^[\\d.,\\u00a0\\u202f ]+ of [\\d.,\\u00a0\\u202f ]+ RFIs/.test(t)) {
            w.__allRowsAt = performance.now();
            obs.disconnect();
          }
        }).observe(document, { childList: true, subtree: true, characterData: true });
      `);
}
