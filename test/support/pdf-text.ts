import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** A PDF's text as a reader gets it (pdfjs-dist), page after page, lines ended where the PDF ends them. */
export async function pdfText(file: string): Promise<string> {
  const pdf = await getDocument({
    data: new Uint8Array(await readFile(file)),
    // The standard fonts' metrics ship with pdfjs-dist (a folder URL with its trailing slash).
    standardFontDataUrl: `${path.resolve('node_modules/pdfjs-dist/standard_fonts')}/`,
  }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= pdf.numPages; i++) {
    const content = await (await pdf.getPage(i)).getTextContent();
    pages.push(
      content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''),
    );
  }
  await pdf.destroy();
  return pages.join('\n');
}
