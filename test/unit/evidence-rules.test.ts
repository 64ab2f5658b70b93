import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import {
  QUESTION_DOCUMENT_TYPES,
  QUESTION_TYPE_LIST,
  documentTypesFor,
  isDocumentType,
} from '../../src/shared/catalogue';
import { daysUntil } from '../../src/main/locker/service';
import { renderCaseFilePdf } from '../../src/main/case-files/pdf';

describe('question type → document types', () => {
  it('every known question type maps to known document types; unknown types fit none', () => {
    for (const q of QUESTION_TYPE_LIST) {
      expect(QUESTION_DOCUMENT_TYPES[q].length).toBeGreaterThan(0);
      for (const d of QUESTION_DOCUMENT_TYPES[q]) expect(isDocumentType(d)).toBe(true);
    }
    expect(documentTypesFor('identification.individual.passport')[0]).toBe('passport');
    expect(documentTypesFor('something.new')).toEqual([]);
    expect(documentTypesFor('__proto__')).toEqual([]);
  });
});

describe('days until a locker document expires (bank time)', () => {
  const at = (iso: string) => Date.parse(iso);
  it('counts whole days from the bank’s today, whatever the hour', () => {
    expect(daysUntil('2026-12-01', at('2026-11-25T00:00:00Z'))).toBe(6);
    expect(daysUntil('2026-12-01', at('2026-11-25T23:59:59Z'))).toBe(6);
    expect(daysUntil('2026-11-25', at('2026-11-25T12:00:00Z'))).toBe(0);
    expect(daysUntil('2026-11-24', at('2026-11-25T12:00:00Z'))).toBe(-1);
  });
});

describe('case-file PDF text', () => {
  it('characters the standard fonts cannot draw become "?" instead of failing the export', async () => {
    const bytes = await renderCaseFilePdf(
      [
        { kind: 'title', text: 'Case file: RFI rfi_1' },
        { kind: 'text', text: 'Ответ клиента 🚢 and Zürich — “quoted”' },
        { kind: 'mono', text: `sha256 ${'ab'.repeat(32)}` },
      ],
      { title: 'Case file', subject: 'rfi_1', footer: 'Exported now · environment test · legal entity le_1' },
    );
    const pdf = await getDocument({
      data: bytes,
      standardFontDataUrl: `${path.resolve('node_modules/pdfjs-dist/standard_fonts')}/`,
    }).promise;
    const content = await (await pdf.getPage(1)).getTextContent();
    const text = content.items.map((i) => ('str' in i ? i.str : '')).join('\n');
    await pdf.destroy();
    expect(text).toContain('Zürich — “quoted”');
    expect(text).toContain('??????');
    expect(text).toContain(`sha256 ${'ab'.repeat(32)}`);
    expect(text).toContain('page 1 of 1');
  });
});
