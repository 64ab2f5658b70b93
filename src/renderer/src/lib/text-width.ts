/**
 * The width a column needs for its longest text, so a column of names (the queue's entities) is
 * as wide as its names and the columns beside it give way instead of cutting them. Measured with
 * the canvas text metrics of the page's own font; null where no canvas measures text (jsdom), and
 * the caller keeps its flexible width.
 */
export function widestText(texts: readonly string[], font = bodyFont()): number | null {
  if (texts.length === 0 || typeof OffscreenCanvas === 'undefined' || !font) return null;
  const ctx = new OffscreenCanvas(1, 1).getContext('2d');
  if (!ctx) return null;
  ctx.font = font;
  return Math.ceil(Math.max(...texts.map((t) => ctx.measureText(t).width)));
}

/** The font table cells inherit (the body's), as a canvas font string. */
function bodyFont(): string | null {
  if (typeof document === 'undefined' || !document.body) return null;
  const s = getComputedStyle(document.body);
  return `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
}
