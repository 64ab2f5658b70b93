/**
 * Where a case file goes: one base name from the save dialog gives `name.pdf` and `name.zip`
 * (typing `x.zip` or `x.pdf` names the base `x`, never `x.zip.pdf`), and which existing files the
 * dialog did not already confirm replacing. The native save dialog confirms replacing only the
 * path it returns; the other file beside it is confirmed in a native message box by main, so no
 * existing file is ever replaced unasked.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Platform } from '../infra/platform';

export interface CaseFilePaths {
  pdfPath: string;
  zipPath: string | null;
}

/** `/d/x`, `/d/x.pdf`, `/d/x.zip`, `/d/x.zip.pdf` → `/d/x.pdf` (+ `/d/x.zip` when asked). */
export function caseFilePaths(chosen: string, zip: boolean): CaseFilePaths {
  let name = path.basename(chosen);
  while (/\.(pdf|zip)$/i.test(name)) name = name.replace(/\.(pdf|zip)$/i, '');
  const base = path.join(path.dirname(chosen), name.trim() === '' ? 'case-file' : name);
  return { pdfPath: `${base}.pdf`, zipPath: zip ? `${base}.zip` : null };
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** The files about to be written that exist and are not the one the save dialog confirmed. */
export async function unconfirmedReplacements(chosen: string, paths: CaseFilePaths): Promise<string[]> {
  const out: string[] = [];
  for (const p of [paths.pdfPath, paths.zipPath]) {
    if (p !== null && path.resolve(p) !== path.resolve(chosen) && (await exists(p))) out.push(p);
  }
  return out;
}

/**
 * Asks the save dialog for a base name and, when a file beside the chosen one would be replaced,
 * the analyst's native confirmation. Null: cancelled (nothing is written).
 */
export async function chooseCaseFilePaths(
  platform: Platform,
  defaultBase: string,
  zip: boolean,
): Promise<CaseFilePaths | null> {
  const chosen = await platform.showSaveFileDialog({
    title: zip ? 'Save the case file (PDF and ZIP of the documents)' : 'Save the case file (PDF)',
    defaultName: `${defaultBase}.pdf`,
    extensions: ['pdf'],
  });
  if (!chosen) return null;
  const paths = caseFilePaths(chosen, zip);
  const replace = await unconfirmedReplacements(chosen, paths);
  if (replace.length === 0) return paths;
  const names = replace.map((p) => path.basename(p)).join(' and ');
  const approved = await platform.confirmDestination({
    kind: 'file-replace',
    destination: replace.join('\n'),
    title: 'Replace existing files?',
    message: `${names} already ${replace.length === 1 ? 'exists' : 'exist'} in ${path.dirname(paths.pdfPath)}.`,
    detail: 'Replacing overwrites the existing file with this case file. Cancel keeps it and saves nothing.',
    approveLabel: 'Replace',
  });
  return approved ? paths : null;
}
