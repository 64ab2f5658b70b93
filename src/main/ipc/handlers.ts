import type { Handlers } from './dispatcher';
import type { ServiceCore } from '../core';
import { auditHandlers } from '../activity/handlers';
import { cryptoHandlers } from '../crypto/handlers';
import { returnsHandlers } from '../returns/handlers';
import { rfiAnswersHandlers } from '../rfi-answers/handlers';
import { rfisHandlers } from '../rfis/handlers';
import { webhookHandlers } from '../rfis/webhook-handlers';
import { lockerHandlers } from '../locker/handlers';
import { caseFilesHandlers } from '../case-files/handlers';
import { sessionHandlers } from '../session/session-handlers';
import { settingsHandlers } from '../session/settings-handlers';
import { vaultHandlers } from '../session/vault-handlers';
import { desktopHandlers } from '../desktop/handlers';
import { remindersHandlers } from '../desk/handlers';

/** Joins every feature's handlers into the map the dispatcher serves. */
export function buildHandlers(core: ServiceCore): Handlers {
  return {
    ...sessionHandlers(core),
    ...settingsHandlers({
      settings: core.settings,
      profiles: core.profilesService,
      stores: core.stores,
      view: core.settingsView,
    }),
    ...vaultHandlers({
      vault: core.vault,
      profiles: core.profilesService,
      events: core.events,
      view: core.settingsView,
    }),
    ...auditHandlers(core),
    ...cryptoHandlers(core),
    ...returnsHandlers(core.returns),
    ...rfiAnswersHandlers({ answers: core.rfiAnswers, ownerScope: core.ownerScope }),
    ...rfisHandlers(core),
    ...webhookHandlers(core),
    ...lockerHandlers(core),
    ...caseFilesHandlers(core.caseFiles),
    ...desktopHandlers(core),
    ...remindersHandlers(core),
  };
}
