/** The demo team of `npm run team:dev` and the tests: two legal entities, the three demo analysts. */
import type { TeamSeed } from '../bootstrap';

export const DEMO_TEAM: TeamSeed = {
  entities: [
    { id: 'le_demo_alder', name: 'Alder Trade GmbH' },
    { id: 'le_demo_birch', name: 'Birch Capital Ltd' },
  ],
  members: [
    {
      subject: 'maria.keller',
      name: 'Maria Keller',
      legalEntityId: 'le_demo_alder',
      roles: ['maker', 'admin'],
    },
    {
      subject: 'jonas.weber',
      name: 'Jonas Weber',
      legalEntityId: 'le_demo_alder',
      roles: ['maker', 'checker'],
    },
    { subject: 'lea.fischer', name: 'Lea Fischer', legalEntityId: 'le_demo_alder', roles: ['checker'] },
    {
      subject: 'lea.fischer',
      name: 'Lea Fischer',
      legalEntityId: 'le_demo_birch',
      roles: ['maker', 'admin'],
    },
  ],
};
