// Runs Electronegativity over src/ and the built out/ and fails on any finding above informational that
// docs/security-exceptions.md does not list (check + file). The findings are read from the tool's
// programmatic API (the same objects its SARIF/CSV writers serialise), never parsed from text.
//
// Offline and deterministic by construction:
// - the Electron version is passed in, so the tool does not look it up;
// - AVAILABLE_SECURITY_FIXES_GLOBAL_CHECK is left out: it downloads Electron's release list from
//   GitHub, so its answer depends on the network and on the day (the pinned Electron version in
//   package.json is what we review instead);
// - the tool's translation download (its locales/i18n.js asks an S3 bucket with `got` before every
//   run) is answered "unavailable" in-process, so the bundled en-US messages are used.
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { transform } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const electronVersion = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies
  .electron;

const rootRequire = createRequire(path.join(root, 'package.json'));
const toolRequire = createRequire(rootRequire.resolve('@doyensec/electronegativity/package.json'));

// The `got` that the tool's i18n module loads: seeded in the module cache with a client that
// refuses at once, so no request leaves this machine.
const i18nRequire = createRequire(toolRequire.resolve('./dist/locales/i18n.js'));
const gotPath = i18nRequire.resolve('got');
const noNetwork = () => Promise.reject(new Error('network disabled for the security audit'));
noNetwork.head = noNetwork;
toolRequire.cache[gotPath] = { id: gotPath, filename: gotPath, loaded: true, exports: noNetwork };

const run = toolRequire('./dist/runner.js');

/**
 * Runs the tool over one folder and answers its findings as plain objects. `input` is the folder
 * named in the findings; `dir` the folder scanned (a lowered copy of it, see below).
 */
async function audit(input, dir = path.join(root, input)) {
  const quiet = console.log;
  console.log = () => {}; // the tool logs its translation fallback; the findings are printed below
  try {
    const result = await run({
      input: dir,
      isRelative: true,
      electronVersionOverride: electronVersion,
      excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
      customScan: [],
      parserPlugins: [],
    });
    const broken = result.errors.filter((e) => !e.tolerable);
    if (broken.length > 0) {
      for (const e of broken) console.error(`electronegativity could not parse ${e.file}: ${e.message}`);
      process.exit(1);
    }
    return result.issues.map((issue) => ({
      check: issue.id,
      severity: issue.severity.name,
      file: `${input}/${issue.file.split(path.sep).join('/')}`,
      location: `${issue.location.line}:${issue.location.column}`,
    }));
  } finally {
    console.log = quiet;
  }
}

// The sources, and the built app as it ships (npm test builds before this runs).
if (!existsSync(path.join(root, 'out/main/index.js'))) {
  console.error('out/ is not built: run "npm run build" first');
  process.exit(1);
}

// The tool's Babel traversal predates ES2022 classes (static blocks, private fields), which the
// renderer's libraries (React Aria) ship and the build keeps, since Chromium runs them natively. The
// audit scans a copy of out/ whose renderer chunks esbuild lowers to ES2021: the same code, every
// call and option the checks look for intact, in a syntax the tool reads. Findings keep out/ paths;
// their line numbers in renderer chunks refer to the lowered copy.
const lowered = mkdtempSync(path.join(tmpdir(), 'electronegativity-'));
let all;
try {
  cpSync(path.join(root, 'out'), lowered, { recursive: true });
  const assets = path.join(lowered, 'renderer/assets');
  for (const name of existsSync(assets) ? readdirSync(assets) : []) {
    if (!name.endsWith('.js')) continue;
    const file = path.join(assets, name);
    const { code } = await transform(readFileSync(file, 'utf8'), {
      target: 'es2021',
      format: 'esm',
      loader: 'js',
    });
    writeFileSync(file, code);
  }
  all = [...(await audit('src')), ...(await audit('out', lowered))];
} finally {
  rmSync(lowered, { recursive: true, force: true });
}
const findings = all
  .filter((f) => f.severity !== 'INFORMATIONAL')
  .sort((a, b) => `${a.file} ${a.location} ${a.check}`.localeCompare(`${b.file} ${b.location} ${b.check}`));

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
