import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseFilePaths } from '../../src/main/case-files/save';

describe('case file paths: one base name', () => {
  it('gives name.pdf and name.zip whatever extension was typed', () => {
    const d = path.join(path.sep, 'cases');
    for (const typed of ['x', 'x.pdf', 'x.zip', 'x.zip.pdf', 'x.PDF', 'x.pdf.zip']) {
      expect(caseFilePaths(path.join(d, typed), true), typed).toEqual({
        pdfPath: path.join(d, 'x.pdf'),
        zipPath: path.join(d, 'x.zip'),
      });
    }
    expect(caseFilePaths(path.join(d, 'x.zip'), false)).toEqual({
      pdfPath: path.join(d, 'x.pdf'),
      zipPath: null,
    });
    expect(caseFilePaths(path.join(d, 'report.v2'), true).pdfPath).toBe(path.join(d, 'report.v2.pdf'));
    expect(caseFilePaths(path.join(d, '.pdf'), false).pdfPath).toBe(path.join(d, 'case-file.pdf'));
  });
});
