import type { Handlers } from '../ipc/dispatcher';
import type { ServiceCore } from '../core';
import { auditHandlers } from './audit';
import { cryptoHandlers } from './crypto';
import { returnsHandlers } from './returns';
import { rfiAnswersHandlers } from './rfi-answers';
import { rfisHandlers } from './rfis';
import { webhookHandlers } from './webhook';
import { sessionHandlers } from './session';
import { settingsHandlers } from './settings';
import { vaultHandlers } from './vault';

/** Joins every feature's handlers into the map the dispatcher serves. */
export function buildHandlers(core: ServiceCore): Handlers {
  return {
    ...sessionHandlers(core),
    ...settingsHandlers(core),
    ...vaultHandlers(core),
    ...auditHandlers(core),
    ...cryptoHandlers(core),
    ...returnsHandlers(core),
    ...rfiAnswersHandlers(core),
    ...rfisHandlers(core),
    ...webhookHandlers(core),
  };
}
