import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Every regular file under dir (recursively), by its path relative to dir ('/'-separated). */
export async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) out.set(path.relative(dir, full).split(path.sep).join('/'), await readFile(full));
    }
  };
  await walk(dir);
  return out;
}
