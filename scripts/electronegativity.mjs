// Runs Electronegativity over src/ and the built out/ and fails on any finding above informational that
// docs/security-exceptions.md does not list (check + file). Offline-safe: the Electron version
// is passed in, so the tool does not need to look it up.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const electronVersion = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies
  .electron;
/** Runs the tool over one folder and returns its CSV report. */
function audit(input) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'electronegativity-'));
  const out = path.join(tmp, 'findings.csv');
  const run = spawnSync(
    'npx',
    ['electronegativity', '-i', input, '-o', out, '-r', '-v', 'false', '-e', electronVersion],
    { cwd: root, encoding: 'utf8', timeout: 300_000 },
  );
  try {
    return readFileSync(out, 'utf8');
  } catch {
    console.error(run.stdout, run.stderr);
    console.error(`electronegativity produced no report for ${input}/`);
    process.exit(1);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The sources, and the built app as it ships (npm test builds before this runs).
if (!existsSync(path.join(root, 'out/main/index.js'))) {
  console.error('out/ is not built: run "npm run build" first');
  process.exit(1);
}
const reports = ['src', 'out'].map((input) => ({ input, csv: audit(input) }));

/** Splits one CSV line, honouring double-quoted fields. */
function fields(line) {
  const out = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

const findings = reports
  .flatMap(({ input, csv }) =>
    csv
      .split('\n')
      .slice(1)
      .filter((l) => l.trim())
      .map(fields)
      .map(([check, severity, confidence, file, location]) => ({
        check,
        severity,
        confidence,
        file: `${input}/${file}`,
        location,
      })),
  )
  .filter((f) => f.severity !== 'INFORMATIONAL');

const accepted = new Set(
  [
    ...readFileSync(path.join(root, 'docs/security-exceptions.md'), 'utf8').matchAll(
      /^\| `([A-Z_]+)` \| `([^`]+)` \|/gm,
    ),
  ].map((m) => `${m[1]} ${m[2]}`),
);

const unexpected = findings.filter((f) => !accepted.has(`${f.check} ${f.file}`));
for (const f of findings) {
  const mark = accepted.has(`${f.check} ${f.file}`) ? 'accepted' : 'NEW';
  console.log(`${mark.padEnd(8)} ${f.severity.padEnd(6)} ${f.check} ${f.file}:${f.location}`);
}
console.log(
  `electronegativity: ${findings.length} findings above informational, ${unexpected.length} not documented`,
);
if (unexpected.length > 0) {
  console.error('Fix these or document them in docs/security-exceptions.md with the reason.');
  process.exit(1);
}
