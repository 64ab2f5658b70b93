import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Every regular file under dir (recursively), by its path relative to dir ('/'-separated). */
export async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) {
        // A temp file of a write under way may be renamed away between the listing and the read.
        const bytes = await readFile(full).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return null;
          throw err;
        });
        if (bytes) out.set(path.relative(dir, full).split(path.sep).join('/'), bytes);
      }
    }
  };
  await walk(dir);
  return out;
}
