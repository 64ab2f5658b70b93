import { describe, expect, it } from 'vitest';
import type { AssignmentView, TeamStatusView } from '../../src/shared/ipc/channels/team';
import { holderMatches, holderOf, holderWords } from '../../src/renderer/src/features/team/holders';
import { useTeam } from '../../src/renderer/src/features/team/store';
import { teamStatusWords, whoWords } from '../../src/renderer/src/features/team/words';

const maria = { subject: 'maria.keller', name: 'Maria Keller', isYou: true };
const jonas = { subject: 'jonas.weber', name: 'Jonas Weber', isYou: false };
const view = (v: Partial<AssignmentView>): AssignmentView => ({
  legalEntityId: 'le_1',
  rfiId: 'rfi_1',
  holder: null,
  pending: null,
  pendingTo: null,
  ...v,
});

describe('team words', () => {
  it('names the holder, "You" for oneself, and a pending claim as pending', () => {
    expect(holderWords(undefined)).toBe('Unassigned');
    expect(holderWords(view({ holder: jonas }))).toBe('Jonas Weber');
    expect(holderWords(view({ holder: maria }))).toBe('You');
    expect(holderWords(view({ pending: 'claim', pendingTo: maria }))).toBe('You (pending)');
    expect(holderWords(view({ holder: maria, pending: 'release' }))).toBe('Unassigned (pending)');
  });

  it('"Mine" holds the analyst’s RFIs and pending claims; "Unassigned" those nobody holds', () => {
    const rows = {
      free: undefined,
      theirs: view({ holder: jonas }),
      mine: view({ holder: maria }),
      pending: view({ pending: 'claim', pendingTo: maria }),
    };
    const pick = (f: 'mine' | 'unassigned') =>
      Object.entries(rows)
        .filter(([, v]) => holderMatches(v, f))
        .map(([k]) => k);
    expect(pick('mine')).toEqual(['mine', 'pending']);
    expect(pick('unassigned')).toEqual(['free']);
  });

  it('says who is signed in with roles per entity, and the team connection apart from the bank’s', () => {
    const status: TeamStatusView = {
      serverUrl: 'https://team.example',
      connection: 'unreachable',
      since: Date.UTC(2026, 10, 27, 9, 30, 0),
      retryAt: 10_000 + 4_000,
      analyst: {
        subject: 'maria.keller',
        name: 'Maria Keller',
        memberships: [
          { legalEntityId: 'le_1', legalEntityName: 'Alder Trade GmbH', roles: ['admin', 'maker'] },
        ],
      },
      pendingChanges: 1,
      problem: null,
    };
    expect(whoWords(status.analyst!)).toBe('Signed in as Maria Keller (maker, admin at Alder Trade GmbH).');
    expect(teamStatusWords(status, 10_000)).toMatch(
      /^Team server unreachable since .+, retrying in 4 s\. 1 change waiting\.$/,
    );
    expect(teamStatusWords({ ...status, connection: 'connected' })).toBe(
      'Team: connected. 1 change waiting.',
    );
    expect(teamStatusWords({ ...status, serverUrl: null, connection: 'solo' })).toBe('');
  });
});

describe('holders of RFIs', () => {
  it('two entities’ RFIs of the same id never show each other’s holder', () => {
    useTeam.setState({ assignments: {} });
    useTeam.getState().put(view({ legalEntityId: 'le_alder', rfiId: 'rfi_1', holder: jonas }));
    useTeam.getState().put(view({ legalEntityId: 'le_birch', rfiId: 'rfi_1', holder: maria }));
    const holders = useTeam.getState().assignments;
    expect(holderWords(holderOf(holders, { id: 'rfi_1', legalEntityId: 'le_alder' }))).toBe('Jonas Weber');
    expect(holderWords(holderOf(holders, { id: 'rfi_1', legalEntityId: 'le_birch' }))).toBe('You');
    // An entity without a holder for that id, or one the bank has not named yet: nobody.
    expect(holderOf(holders, { id: 'rfi_1', legalEntityId: 'le_cedar' })).toBeUndefined();
    expect(holderOf(holders, { id: 'rfi_1', legalEntityId: null })).toBeUndefined();
    expect(holderOf(null, { id: 'rfi_1', legalEntityId: 'le_alder' })).toBeUndefined();
  });
});
