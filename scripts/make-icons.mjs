/**
 * Renders the app icon set from resources/icon.svg (needs rsvg-convert: apt-get install
 * librsvg2-bin). The outputs are committed, so neither the build nor the tests need the tool:
 *   resources/icons/<n>x<n>.png  16…1024 (electron-builder's Linux icon set, the tray icon)
 *   resources/icon.png           1024 (fallback for every platform)
 *   resources/icon.ico           16…256, PNG-compressed entries (Windows)
 *   resources/icon.icns          16…1024 (macOS)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resources = path.join(root, 'resources');
const svg = path.join(resources, 'icon.svg');
const sizes = [16, 24, 32, 48, 64, 128, 256, 512, 1024];

mkdirSync(path.join(resources, 'icons'), { recursive: true });
const png = {};
for (const n of sizes) {
  const out = path.join(resources, 'icons', `${n}x${n}.png`);
  execFileSync('rsvg-convert', ['-w', String(n), '-h', String(n), svg, '-o', out]);
  png[n] = readFileSync(out);
}
writeFileSync(path.join(resources, 'icon.png'), png[1024]);

// ICO: ICONDIR, then one ICONDIRENTRY per image, then the PNG data (Vista+ format).
const icoSizes = [16, 24, 32, 48, 64, 128, 256];
const header = Buffer.alloc(6);
header.writeUInt16LE(0, 0);
header.writeUInt16LE(1, 2);
header.writeUInt16LE(icoSizes.length, 4);
let offset = 6 + 16 * icoSizes.length;
const entries = icoSizes.map((n) => {
  const e = Buffer.alloc(16);
  e.writeUInt8(n >= 256 ? 0 : n, 0);
  e.writeUInt8(n >= 256 ? 0 : n, 1);
  e.writeUInt8(0, 2);
  e.writeUInt8(0, 3);
  e.writeUInt16LE(1, 4);
  e.writeUInt16LE(32, 6);
  e.writeUInt32LE(png[n].length, 8);
  e.writeUInt32LE(offset, 12);
  offset += png[n].length;
  return e;
});
writeFileSync(
  path.join(resources, 'icon.ico'),
  Buffer.concat([header, ...entries, ...icoSizes.map((n) => png[n])]),
);

// ICNS: 'icns' + total length, then (type, length incl. 8-byte header, PNG data) per image.
const icnsTypes = [
  ['icp4', 16],
  ['icp5', 32],
  ['icp6', 64],
  ['ic07', 128],
  ['ic08', 256],
  ['ic09', 512],
  ['ic10', 1024],
  ['ic11', 32],
  ['ic12', 64],
  ['ic13', 256],
  ['ic14', 512],
];
const chunks = icnsTypes.map(([type, n]) => {
  const h = Buffer.alloc(8);
  h.write(type, 0, 'ascii');
  h.writeUInt32BE(8 + png[n].length, 4);
  return Buffer.concat([h, png[n]]);
});
const body = Buffer.concat(chunks);
const icnsHeader = Buffer.alloc(8);
icnsHeader.write('icns', 0, 'ascii');
icnsHeader.writeUInt32BE(8 + body.length, 4);
writeFileSync(path.join(resources, 'icon.icns'), Buffer.concat([icnsHeader, body]));
console.log(`icons written to ${resources}`);
