/**
 * The demo team of `npm run team:dev` and the tests: the three demo analysts of the development
 * provider, its client, and two legal entities with their roles. Plain data, so the tests' workers
 * need not load the provider to know them.
 */
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

export interface DemoAnalyst {
  subject: string;
  name: string;
  email: string;
  password: string;
}

export const DEMO_ANALYSTS: readonly DemoAnalyst[] = [
  {
    subject: 'maria.keller',
    name: 'Maria Keller',
    email: 'maria.keller@example.test',
    password: 'demo-maria',
  },
  { subject: 'jonas.weber', name: 'Jonas Weber', email: 'jonas.weber@example.test', password: 'demo-jonas' },
  { subject: 'lea.fischer', name: 'Lea Fischer', email: 'lea.fischer@example.test', password: 'demo-lea' },
];

export const DESK_CLIENT_ID = 'treasury-desk';
export const TEAM_SCOPE = 'team';
