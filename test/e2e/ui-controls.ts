/**
 * Locators for the design system's controls, by role and label (the app's controls are React
 * Aria Components, not native elements): a Select is a button named by its value and its label,
 * opening a listbox of options.
 */
import type { Locator, Page } from '@playwright/test';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The button of the Select labelled `label` (its name is "<value> <label>"). */
export function selectButton(scope: Page | Locator, label: string): Locator {
  return scope
    .getByRole('button', { name: new RegExp(`(^|\\s)${escapeRe(label)}$`) })
    .and(scope.locator('[aria-haspopup="listbox"]'));
}

/** Chooses `option` (its whole name, or a pattern) in the Select labelled `label`. */
export async function chooseOption(
  page: Page,
  scope: Page | Locator,
  label: string,
  option: string | RegExp,
): Promise<void> {
  await selectButton(scope, label).click();
  await page.getByRole('listbox').getByRole('option', { name: option, exact: true }).click();
}
