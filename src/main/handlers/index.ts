import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../services';
import { sessionHandlers } from './session';

/** Joins every feature's handlers into the map the dispatcher serves. */
export function buildHandlers(core: ServiceCore): Handlers {
  return {
    ...sessionHandlers(core),
  };
}
