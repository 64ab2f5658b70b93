/**
 * The case file's PDF, drawn with pdf-lib: plain text in two standard fonts (Helvetica for words,
 * Courier for ids and hashes, so a sha256 is never split), wrapped to the page, with a footer on
 * every page (export time, environment, legal entity, page n of m). Characters the standard
 * fonts cannot draw are replaced by "?" (the bank's texts may hold any script; the ZIP's
 * manifest and the bank keep the originals).
 */
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';

export type Block =
  | { kind: 'title'; text: string }
  | { kind: 'heading'; text: string }
  | { kind: 'subheading'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'mono'; text: string }
  | { kind: 'gap' };

const PAGE = { width: 595.28, height: 841.89, margin: 50, footer: 30 };
const STYLE = {
  title: { size: 16, lead: 22 },
  heading: { size: 13, lead: 19 },
  subheading: { size: 10.5, lead: 15 },
  text: { size: 9.5, lead: 13 },
  mono: { size: 8, lead: 11 },
};

export async function renderCaseFilePdf(
  blocks: Block[],
  meta: { title: string; footer: string; subject: string },
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(meta.title);
  doc.setSubject(meta.subject);
  doc.setProducer('Treasury Desk');
  doc.setCreator('Treasury Desk');
  const sans = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const mono = await doc.embedFont(StandardFonts.Courier);
  const drawable = new Map<PDFFont, Set<number>>(
    [sans, bold, mono].map((f) => [f, new Set(f.getCharacterSet())] as const),
  );
  const safe = (font: PDFFont, text: string): string => {
    const set = drawable.get(font)!;
    let out = '';
    for (const ch of text.replace(/\r\n?/g, '\n')) {
      const cp = ch.codePointAt(0)!;
      out += ch === '\n' || set.has(cp) ? ch : '?';
    }
    return out;
  };

  let page: PDFPage = doc.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  const width = PAGE.width - 2 * PAGE.margin;
  const bottom = PAGE.margin + PAGE.footer;
  const newPage = (): void => {
    page = doc.addPage([PAGE.width, PAGE.height]);
    y = PAGE.height - PAGE.margin;
  };

  /** Lines of `text` that fit the width (words kept whole unless a word alone is too wide). */
  const wrap = (font: PDFFont, size: number, text: string): string[] => {
    const lines: string[] = [];
    for (const para of text.split('\n')) {
      let line = '';
      for (const word of para.split(/ +/)) {
        const candidate = line === '' ? word : `${line} ${word}`;
        if (font.widthOfTextAtSize(candidate, size) <= width) {
          line = candidate;
          continue;
        }
        if (line !== '') lines.push(line);
        let rest = word;
        while (font.widthOfTextAtSize(rest, size) > width) {
          let n = rest.length;
          while (n > 1 && font.widthOfTextAtSize(rest.slice(0, n), size) > width) n--;
          lines.push(rest.slice(0, n));
          rest = rest.slice(n);
        }
        line = rest;
      }
      lines.push(line);
    }
    return lines;
  };

  for (const b of blocks) {
    if (b.kind === 'gap') {
      y -= 6;
      continue;
    }
    const style = STYLE[b.kind];
    const font = b.kind === 'mono' ? mono : b.kind === 'text' ? sans : bold;
    // A heading is not left alone at the bottom of a page.
    if ((b.kind === 'heading' || b.kind === 'subheading') && y - style.lead * 3 < bottom) newPage();
    for (const line of wrap(font, style.size, safe(font, b.text))) {
      if (y - style.lead < bottom) newPage();
      y -= style.lead;
      page.drawText(line, { x: PAGE.margin, y, size: style.size, font, color: rgb(0.1, 0.1, 0.12) });
    }
  }

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const text = safe(sans, `${meta.footer} · page ${i + 1} of ${pages.length}`);
    for (const [j, line] of wrap(sans, 7.5, text).entries()) {
      p.drawText(line, {
        x: PAGE.margin,
        y: PAGE.margin - 4 - j * 10,
        size: 7.5,
        font: sans,
        color: rgb(0.35, 0.35, 0.4),
      });
    }
  });
  return doc.save();
}
