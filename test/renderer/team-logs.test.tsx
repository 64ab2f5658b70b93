/**
 * The Activity screen's team logs: one section per legal entity the analyst's profiles reach in
 * the team, each read through a profile of that entity, so the second entity's log is there
 * whichever profile is the default.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { TeamLogs } from '../../src/renderer/src/features/team-share/TeamActivity';
import { useShared } from '../../src/renderer/src/features/team-share/store';
import { useTeam } from '../../src/renderer/src/features/team/store';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useShared.setState({ entities: [], loaded: false, problem: null, notice: null });
  useTeam.setState({ status: null, assignments: {}, notice: null });
});

const ENTITIES = [
  { profileId: 'alder', legalEntityId: 'le_alder', legalEntityName: 'Alder Trading GmbH' },
  { profileId: 'birch', legalEntityId: 'le_birch', legalEntityName: 'Birch Capital Ltd' },
];

const status = {
  serverUrl: 'https://team.example.com',
  connection: 'connected',
  since: null,
  retryAt: null,
  analyst: {
    subject: 'maria.keller',
    name: 'Maria Keller',
    memberships: ENTITIES.map((e) => ({
      legalEntityId: e.legalEntityId,
      legalEntityName: e.legalEntityName,
      roles: ['maker'],
    })),
  },
  pendingChanges: 0,
  problem: null,
};

it('shows the team log of every entity of the team, each read through its own profile', async () => {
  const asked: unknown[] = [];
  vi.stubGlobal('desk', {
    invoke: async (channel: string, args: { profileId?: string } | undefined) => {
      if (channel === 'team.status') return { ok: true, value: status };
      if (channel === 'team.assignments') return { ok: true, value: [] };
      if (channel === 'team.sharedEvidence')
        return {
          ok: true,
          value: { entities: ENTITIES.map((e) => ({ ...e, canShare: true, documents: [], offline: false })) },
        };
      if (channel === 'team.activity') {
        asked.push(args);
        const e = ENTITIES.find((x) => x.profileId === args?.profileId) ?? ENTITIES[0]!;
        return {
          ok: true,
          value: {
            legalEntityId: e.legalEntityId,
            legalEntityName: e.legalEntityName,
            entries: [
              {
                seq: 1,
                at: '2026-11-27T10:00:00.000Z',
                actor: { subject: 'jonas.weber', name: 'Jonas Weber', isYou: false },
                action: 'rfi.claimed',
                words: `Claimed an RFI of ${e.legalEntityName}`,
                object: null,
                detail: {},
              },
            ],
            chain: { intact: true, brokenAt: null, words: 'The team log is intact.' },
            offline: false,
          },
        };
      }
      return { ok: false, error: { kind: 'internal', message: `unexpected ${channel}` } };
    },
    subscribe: () => () => undefined,
  });
  render(<TeamLogs />);
  await waitFor(() => expect(screen.getAllByTestId('team-activity')).toHaveLength(2));
  const [alder, birch] = screen.getAllByTestId('team-activity');
  await waitFor(() => expect(within(birch!).getAllByTestId('team-activity-entry')).toHaveLength(1));
  expect(within(alder!).getByRole('heading').textContent).toBe('From the team log: Alder Trading GmbH');
  expect(within(birch!).getByRole('heading').textContent).toBe('From the team log: Birch Capital Ltd');
  expect(birch!.textContent).toContain('Claimed an RFI of Birch Capital Ltd');
  expect(asked).toEqual(expect.arrayContaining([{ profileId: 'alder' }, { profileId: 'birch' }]));
});
