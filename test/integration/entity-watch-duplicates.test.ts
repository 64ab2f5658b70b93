/**
 * Several profiles holding credentials for the same legal entity of the same bank (the sandbox
 * seeds A-admin, A-viewer and B-admin): the desk watches each (bank origin, legal entity) once —
 * the active profile, else an admin credential — lists every RFI once, and says in the entity list
 * which profile watches for the others.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox';
import { startServices } from '../support/services';
import type { TestServices } from '../support/services';

let t: TestServices | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function bankRfiIds(sandbox: RunningSandbox, token: string): Promise<string[]> {
  const res = await fetch(`${sandbox.url}/v1/rfis?page_size=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { data: Array<{ id: string }> }).data.map((r) => r.id).sort();
}

describe('one watch per legal entity', () => {
  it('lists an entity held by two profiles once, watched by the active profile, else by an admin', async () => {
    t = await startServices({
      rfis: { poll: { intervalMs: 400, floorMs: 200, jitter: 0 }, webhook: { autoConfigureSandbox: false } },
    });
    const { services, platform } = t;
    const h = services.handlers;
    const sandbox = services.sandbox!;
    const [leA, leB] = sandbox.fixtures.legal_entities;
    const sandboxProfile = services.session.profile.id;
    await services.rfis.ready();

    const add = async (name: string, token: string): Promise<string> => {
      platform.nextConfirmAnswers.push(true);
      const v = await h['settings.addProfile']({ name, baseUrl: sandbox.url });
      const id = v.profiles.find((p) => p.name === name)!.id;
      await h['vault.setToken']({ profileId: id, token });
      return id;
    };
    const viewerA = await add('Alder viewer', leA!.tokens.viewer!);
    const adminB = await add('Birch admin', leB!.tokens.admin);

    const idsA = await bankRfiIds(sandbox, leA!.tokens.admin);
    const idsB = await bankRfiIds(sandbox, leB!.tokens.admin);
    // The viewer sees the same RFIs at the bank: the same entity.
    expect(await bankRfiIds(sandbox, leA!.tokens.viewer!)).toEqual(idsA);

    const settled = async (watching: string[], total: number) => {
      await expect
        .poll(
          async () => {
            const l = await h['rfis.list'](undefined);
            return {
              members: l.entities!.map((e) => e.profileId).sort(),
              total: l.total,
              unique: new Set(l.items.map((r) => r.id)).size,
            };
          },
          { timeout: 15_000 },
        )
        .toEqual({ members: [...watching].sort(), total, unique: total });
      return h['rfis.list'](undefined);
    };

    // Active: the sandbox profile (A, admin). The A viewer is covered by it, B is watched.
    let l = await settled([sandboxProfile, adminB], idsA.length + idsB.length);
    expect(services.entityWatch.watched().has(viewerA)).toBe(false);
    let a = l.entities!.find((e) => e.profileId === sandboxProfile)!;
    expect(a.name).toBe(leA!.name);
    expect(a.sharedWith).toEqual([{ profileId: viewerA, profileName: 'Alder viewer', role: 'viewer' }]);
    expect(l.entities!.find((e) => e.profileId === adminB)!.sharedWith).toEqual([]);
    expect(
      l.items
        .filter((r) => r.profileId === sandboxProfile)
        .map((r) => r.id)
        .sort(),
    ).toEqual(idsA);

    // The viewer becomes active: it watches A now; the admin profile of A is covered by it.
    await h['settings.activateProfile']({ profileId: viewerA });
    l = await settled([viewerA, adminB], idsA.length + idsB.length);
    a = l.entities!.find((e) => e.profileId === viewerA)!;
    expect(a.active).toBe(true);
    expect(a.sharedWith?.map((s) => s.profileId)).toEqual([sandboxProfile]);
    expect(services.entityWatch.watched().has(sandboxProfile)).toBe(false);

    // B becomes active: of the two A profiles the admin one is watched, the viewer covered by it.
    await h['settings.activateProfile']({ profileId: adminB });
    l = await settled([adminB, sandboxProfile], idsA.length + idsB.length);
    a = l.entities!.find((e) => e.profileId === sandboxProfile)!;
    expect(a.active).toBe(false);
    expect(a.sharedWith?.map((s) => s.profileId)).toEqual([viewerA]);
    expect(services.entityWatch.watched().has(viewerA)).toBe(false);
  });
});
