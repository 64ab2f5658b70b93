import { describe, expect, it } from 'vitest';
import { electronExecutableName, hasDisplay, planStart } from '../../scripts/start-plan';
import type { StartInputs } from '../../scripts/start-plan';

/** The decision of `npm start` (scripts/start.ts): Electron, install it first, or browser mode with one line. */
const base: StartInputs = {
  nodeVersion: '22.12.0',
  electronVersion: '45.4.1',
  electronToolingNode: '>= 22.12.0',
  electronBinary: null,
  display: true,
  install: null,
};

describe('npm start: what runs', () => {
  it('runs Electron when its binary is there, whatever the Node version', () => {
    for (const nodeVersion of ['20.19.0', '22.12.0', '24.1.0']) {
      expect(planStart({ ...base, nodeVersion, electronBinary: '/opt/electron/electron' })).toEqual({
        action: 'electron',
        executable: '/opt/electron/electron',
      });
    }
  });

  it("installs the binary first when it is missing and this Node satisfies Electron's tooling", () => {
    expect(planStart(base)).toEqual({ action: 'install' });
    expect(planStart({ ...base, nodeVersion: '23.0.0' })).toEqual({ action: 'install' });
  });

  it('runs Electron after a successful install found the binary', () => {
    expect(planStart({ ...base, install: { ok: true }, electronBinary: '/x/dist/electron' })).toEqual({
      action: 'electron',
      executable: '/x/dist/electron',
    });
  });

  it('falls back to browser mode with one line when the download fails', () => {
    const plan = planStart({
      ...base,
      install: { ok: false, reason: 'github.com not reachable: ENOTFOUND' },
    });
    expect(plan.action).toBe('browser');
    if (plan.action !== 'browser') return;
    expect(plan.why).not.toContain('\n');
    expect(plan.why).toContain('github.com not reachable: ENOTFOUND');
    expect(plan.why).toContain('ELECTRON_OVERRIDE_DIST_PATH');
  });

  it('does not try to install on a Node older than the tooling asks for, and says so', () => {
    for (const nodeVersion of ['20.19.0', '20.20.2', '22.11.0']) {
      const plan = planStart({ ...base, nodeVersion });
      expect(plan.action, nodeVersion).toBe('browser');
      if (plan.action !== 'browser') continue;
      expect(plan.why).toContain(`this is Node ${nodeVersion}`);
      expect(plan.why).toContain('>= 22.12.0');
      expect(plan.why).not.toContain('\n');
    }
  });

  it('uses browser mode when no window can be shown, even with the binary', () => {
    const plan = planStart({ ...base, display: false, electronBinary: '/opt/electron/electron' });
    expect(plan.action).toBe('browser');
    if (plan.action === 'browser') expect(plan.why).toMatch(/No display.*xvfb-run/);
  });

  it('says so when the installer succeeded but left no binary', () => {
    const plan = planStart({ ...base, install: { ok: true } });
    expect(plan.action).toBe('browser');
  });

  it('knows a display and the executable name per platform', () => {
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':99' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('darwin', {})).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
    expect(electronExecutableName('linux')).toBe('electron');
    expect(electronExecutableName('win32')).toBe('electron.exe');
    expect(electronExecutableName('darwin')).toBe('Electron.app/Contents/MacOS/Electron');
  });
});
