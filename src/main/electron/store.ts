import ElectronStore from 'electron-store';
import type { StoreFactory } from '../infra/stores';

/** electron-store as the state-file engine in the app (atomic writes, 0600 like conf in Node). */
export const electronStoreFactory: StoreFactory = (o) =>
  new ElectronStore<Record<string, unknown>>({
    cwd: o.cwd,
    name: o.name,
    defaults: o.defaults,
    configFileMode: o.fileMode,
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
  });
