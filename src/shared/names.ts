/**
 * Names as they are kept and shown (file names, document holders, profile names): Unicode NFC,
 * without control characters (Cc), format characters (Cf: the bidi overrides and isolates such as
 * U+202E, zero-width characters, the BOM) or line and paragraph separators, with runs of white
 * space made one space. So "invoice\u202Efdp.exe" cannot pose as "invoiceexe.pdf" in a
 * notification, a case file or a list. Pure: String.prototype.normalize and Unicode property
 * escapes are built into every JavaScript engine we run on, so no library is needed.
 */

// Cc, Cf, Zl and Zp: controls, format characters (bidi and zero-width among them), separators.
const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export function cleanName(name: string, max = 255): string {
  return name.normalize('NFC').replace(hidden, '').replace(/\s+/gu, ' ').trim().slice(0, max);
}

/** A file's name for display: its last path segment, cleaned ('file' when nothing is left). */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  return cleanName(base) || 'file';
}
