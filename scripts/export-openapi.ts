/** `npm run openapi`: writes docs/openapi.json from the shared zod schemas and route table. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../src/shared/api/openapi';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'openapi.json');
await writeFile(out, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
