/**
 * The composition root's handler map: each feature exports its handlers as a plain map over the
 * narrow dependencies it declares; this joins them for the dispatcher (a transport that knows no
 * feature). Only the root imports this file.
 */
import type { Handlers } from './ipc/dispatcher';
import type { ServiceCore } from './core';
import { auditHandlers } from './activity/handlers';
import { cryptoHandlers } from './crypto/handlers';
import { returnsHandlers } from './returns/handlers';
import { rfiAnswersHandlers } from './rfi-answers/handlers';
import { rfisHandlers } from './rfis/handlers';
import { webhookHandlers } from './rfis/webhook-handlers';
import { lockerHandlers } from './locker/handlers';
import { caseFilesHandlers } from './case-files/handlers';
import { sessionHandlers } from './session/session-handlers';
import { settingsHandlers } from './session/settings-handlers';
import { vaultHandlers } from './session/vault-handlers';
import { desktopHandlers } from './desktop/handlers';
import { remindersHandlers } from './watch/handlers';
import { teamHandlers } from './team/handlers';
import { teamApprovalHandlers, withApprovalGate } from './team/approvals-handlers';
import { teamShareHandlers } from './team/share-handlers';
import { teamReturnHandlers, withReturnApprovalGate } from './team/return-approvals-handlers';
import { teamMandateHandlers, withMandateGate } from './team/exchange-mandates-handlers';

export function buildHandlers(s: ServiceCore): Handlers {
  const view = s.settingsView;
  const answers = rfiAnswersHandlers({ answers: s.rfiAnswers, ...s.answerOwners });
  const returns = returnsHandlers(s.returns);
  const crypto = cryptoHandlers(s.crypto);
  return {
    ...sessionHandlers({ session: s.session, settings: s.settings, vault: s.vault }),
    ...settingsHandlers({ settings: s.settings, profiles: s.profilesService, stores: s.stores, view }),
    ...vaultHandlers({ vault: s.vault, profiles: s.profilesService, events: s.events, view }),
    ...auditHandlers({ audit: s.audit, platform: s.platform, teamCsvRows: () => s.teamShare.csvRows() }),
    ...crypto,
    ...withMandateGate(crypto, s.mandates),
    ...returns,
    ...withReturnApprovalGate(returns, s.returnApprovals),
    ...answers,
    ...withApprovalGate(answers, s.approvals),
    ...rfisHandlers(s.entityWatch, s.caseFileJournal, s.relatedNames),
    ...webhookHandlers({
      webhooks: s.webhooks,
      operations: s.operations,
      destinations: s.destinations,
      session: s.session,
    }),
    ...lockerHandlers(s.locker),
    ...caseFilesHandlers(s.caseFiles),
    ...desktopHandlers(s.desktop),
    ...remindersHandlers(s.entityWatch),
    ...teamHandlers(s.team),
    ...teamApprovalHandlers(s.approvals),
    ...teamShareHandlers(s.teamShare),
    ...teamReturnHandlers(s.returnApprovals),
    ...teamMandateHandlers(s.mandates),
  };
}
