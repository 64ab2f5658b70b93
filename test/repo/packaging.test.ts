import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Ajv from 'ajv';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { appId, productName } from '../../src/main/electron/app-identity';
import { linkScheme } from '../../src/main/electron/links/parse';
import { checkFeedUrl } from '../../src/main/desktop/updates';

/**
 * Packaging cannot run here (no Electron binary), so its configuration is checked instead:
 * electron-builder's own schema, the icons and entitlements it names, and the fuse hook.
 */
const root = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const config = yaml.load(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as Record<
  string,
  unknown
> & {
  mac: Record<string, unknown>;
  win: Record<string, unknown>;
  linux: Record<string, unknown>;
};

function pngSize(file: string): { width: number; height: number } {
  const b = readFileSync(file);
  expect(b.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

describe('electron-builder configuration', () => {
  it("is valid against electron-builder's schema", () => {
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const ok = validate(config);
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
    expect(ok).toBe(true);
  });

  it('names the app as the shell does and packs only the build output, in an ASAR', () => {
    expect(config['appId']).toBe(appId);
    expect(config['productName']).toBe(productName);
    expect(config['asar']).toBe(true);
    expect(config['files']).toEqual(['out/**', 'package.json']);
  });

  it('targets Windows nsis, macOS dmg with the hardened runtime, Linux deb and AppImage', () => {
    expect(config.win['target']).toEqual(['nsis']);
    expect(config.mac['target']).toEqual(['dmg']);
    expect(config.mac['hardenedRuntime']).toBe(true);
    expect(config.linux['target']).toEqual(['deb', 'AppImage']);
    expect(config.linux['category']).toBe('Finance');
  });

  it('has the icon set it names: PNGs of the right sizes, an .ico and an .icns', () => {
    for (const size of [16, 24, 32, 48, 64, 128, 256, 512, 1024]) {
      expect(pngSize(path.join(root, `resources/icons/${size}x${size}.png`))).toEqual({
        width: size,
        height: size,
      });
    }
    const ico = readFileSync(path.join(root, String(config.win['icon'])));
    expect(ico.readUInt16LE(0)).toBe(0);
    expect(ico.readUInt16LE(2)).toBe(1);
    expect(
      readFileSync(path.join(root, String(config.mac['icon'])))
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('icns');
  });

  it('grants the macOS build only the JIT entitlement Electron needs', () => {
    const plist = readFileSync(path.join(root, String(config.mac['entitlements'])), 'utf8');
    const keys = [...plist.matchAll(/<key>([^<]+)<\/key>/g)].map((m) => m[1]);
    expect(keys).toEqual(['com.apple.security.cs.allow-jit']);
  });
});

describe('links, tray icon and update feed in the packaging', () => {
  it('registers the treasury-desk:// scheme the shell parses', () => {
    expect(config['protocols']).toEqual([{ name: 'Treasury Desk link', schemes: [linkScheme] }]);
  });

  it('ships the tray icon outside the ASAR, where the shell looks for it', () => {
    const extra = config['extraResources'] as Array<{ from: string; to: string }>;
    expect(extra).toEqual([{ from: 'resources/icons/32x32.png', to: 'tray.png' }]);
    expect(pngSize(path.join(root, extra[0]!.from))).toEqual({ width: 32, height: 32 });
  });

  it('configures no update feed by default; a generic https feed given at build time is valid', () => {
    // Without `publish` electron-builder writes no app-update.yml: the app never checks.
    expect(config['publish']).toBeUndefined();
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    const feed = 'https://updates.bank.example/treasury-desk/';
    expect(
      validate({ ...config, publish: { provider: 'generic', url: feed } }),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(checkFeedUrl(feed)).toEqual({ ok: true, url: feed });
    expect(checkFeedUrl('http://updates.bank.example/treasury-desk/')).toMatchObject({ ok: false });
  });
});

describe('fuses after packing', () => {
  const hook = require(path.join(root, 'scripts/after-pack.cjs')) as ((ctx: unknown) => Promise<void>) & {
    fuses: Record<string, boolean>;
    fuseConfig: (lib: unknown, ctx?: unknown) => Record<string | number, unknown>;
    executablePath: (ctx: unknown) => string;
  };

  it('is wired as the afterPack hook', () => {
    expect(config['afterPack']).toBe('scripts/after-pack.cjs');
    expect(typeof hook).toBe('function');
  });

  it('turns RunAsNode and NODE_OPTIONS off and cookie encryption, ASAR integrity and ASAR-only on', async () => {
    expect(hook.fuses).toMatchObject({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableCookieEncryption: true,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
    });
    const lib = (await import('@electron/fuses')) as unknown as {
      FuseVersion: { V1: string };
      FuseV1Options: Record<string, number>;
    };
    const cfg = hook.fuseConfig(lib);
    expect(cfg['version']).toBe(lib.FuseVersion.V1);
    expect(cfg[lib.FuseV1Options['RunAsNode'] as number]).toBe(false);
    expect(cfg[lib.FuseV1Options['OnlyLoadAppFromAsar'] as number]).toBe(true);
    expect(cfg[lib.FuseV1Options['EnableCookieEncryption'] as number]).toBe(true);
  });

  it('finds the packed executable on each platform', () => {
    const packager = {
      appInfo: { productFilename: 'Treasury Desk' },
      executableName: 'treasury-desk',
    };
    expect(hook.executablePath({ appOutDir: '/o', electronPlatformName: 'darwin', packager })).toBe(
      path.join('/o', 'Treasury Desk.app'),
    );
    expect(hook.executablePath({ appOutDir: '/o', electronPlatformName: 'win32', packager })).toBe(
      path.join('/o', 'Treasury Desk.exe'),
    );
    expect(hook.executablePath({ appOutDir: '/o', electronPlatformName: 'linux', packager })).toBe(
      path.join('/o', 'treasury-desk'),
    );
  });
});
