/** Run in a child process without a session bus: what does the real vault report? */
import { openVault } from '../../../src/main/infra/vault';
import { napiKeyringBackend } from '../../../src/main/infra/keyring';
import { createLogger, memorySink } from '../../../src/main/infra/log';

const vault = await openVault({
  backend: napiKeyringBackend(),
  log: createLogger(memorySink()),
  service: 'treasury-desk-probe',
});
await vault.set('probe', 'probe-token-abcdef');
const back = await vault.get('probe');
process.stdout.write(JSON.stringify({ status: vault.status(), roundTrip: back === 'probe-token-abcdef' }));
