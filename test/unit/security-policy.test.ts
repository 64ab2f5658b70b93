import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAppAsset } from '../../src/main/electron/protocol/resolve';
import {
  appOrigin,
  contentSecurityPolicy,
  isAllowedExternalUrl,
  isInAppNavigation,
  isPermissionAllowed,
} from '../../src/main/electron/protocol/policy';

const root = path.resolve('/srv/renderer');

describe('app protocol', () => {
  it('serves files under the renderer folder with their content type', () => {
    expect(resolveAppAsset(root, `${appOrigin}/assets/index-abc.js`)).toEqual({
      ok: true,
      filePath: path.join(root, 'assets/index-abc.js'),
      contentType: 'text/javascript; charset=utf-8',
    });
  });

  it('answers the index for the root and for extension-less paths', () => {
    for (const u of [`${appOrigin}/`, `${appOrigin}`, `${appOrigin}/rfis/abc`]) {
      expect(resolveAppAsset(root, u)).toMatchObject({ ok: true, filePath: path.join(root, 'index.html') });
    }
  });

  it('keeps dot segments the URL parser resolves inside the renderer folder', () => {
    const r = resolveAppAsset(root, `${appOrigin}/%2e%2e/%2e%2e/etc/passwd.txt`);
    expect(r.ok && r.filePath.startsWith(root + path.sep)).toBe(true);
  });

  it.each([
    `${appOrigin}/assets/..%2F..%2Fsecret.json`,
    `${appOrigin}/assets/%5c..%5csecret.json`,
    `${appOrigin}/a%00.js`,
    'app://other-host/index.html',
    'https://treasury-desk/index.html',
    'not a url',
    `${appOrigin}/assets/%E0%A4%A.js`,
  ])('refuses %s', (u) => {
    expect(resolveAppAsset(root, u).ok).toBe(false);
  });

  it('refuses unknown file types', () => {
    expect(resolveAppAsset(root, `${appOrigin}/x.exe`)).toMatchObject({ ok: false, status: 404 });
  });
});

describe('window policy', () => {
  it('has a CSP with no inline script, no eval and no remote origin', () => {
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(contentSecurityPolicy).toContain("script-src 'self'");
    expect(contentSecurityPolicy).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  });

  it('opens only allow-listed https links externally', () => {
    expect(isAllowedExternalUrl('https://www.swift.com/standards')).toBe(true);
    expect(isAllowedExternalUrl('http://www.swift.com/')).toBe(false);
    expect(isAllowedExternalUrl('https://www.swift.com.evil.example/')).toBe(false);
    expect(isAllowedExternalUrl('https://user:pw@www.swift.com/')).toBe(false);
    expect(isAllowedExternalUrl('https://www.swift.com:8443/')).toBe(false);
    expect(isAllowedExternalUrl('file:///etc/passwd')).toBe(false);
    expect(isAllowedExternalUrl('javascript:alert(1)')).toBe(false);
  });

  it('allows navigation only within the app origins', () => {
    expect(isInAppNavigation('app://treasury-desk/index.html#/rfis', [appOrigin])).toBe(true);
    expect(isInAppNavigation('https://example.com/', [appOrigin])).toBe(false);
    expect(isInAppNavigation('app://treasury-desk.evil/', [appOrigin])).toBe(false);
  });

  it('denies every permission', () => {
    for (const p of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'fullscreen',
    ]) {
      expect(isPermissionAllowed(p)).toBe(false);
    }
  });
});
