import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { configureRequestOptions, configureRequestUrl, HttpExecutor } from 'builder-util-runtime';
import type { DownloadOptions } from 'builder-util-runtime';
import type { RequestOptions } from 'node:http';
import { DebUpdater } from 'electron-updater';
import type { AppAdapter } from 'electron-updater/out/AppAdapter';
import { afterEach, describe, expect, it } from 'vitest';
import { createBusyGuard } from '../../src/main/desktop/busy';
import { checkFeedUrl, createUpdateController } from '../../src/main/desktop/updates';

/**
 * A real electron-updater (DebUpdater: the Linux .deb flow, whose download is a plain file with
 * the sha512 check) against a loopback generic feed serving latest-linux.yml and an artifact. Only
 * Electron's pieces are replaced: the app adapter (version, paths) and the HTTP executor (Node's
 * http instead of Electron's net, which needs the Electron binary).
 */

class NodeExecutor extends HttpExecutor<http.ClientRequest> {
  /** The same as electron-updater's ElectronHttpExecutor.download, on Node's http. */
  download(url: URL, destination: string, options: DownloadOptions): Promise<string> {
    return options.cancellationToken.createPromise((resolve, reject, onCancel) => {
      const requestOptions: RequestOptions = { headers: options.headers ?? undefined };
      configureRequestUrl(url, requestOptions);
      configureRequestOptions(requestOptions);
      this.doDownload(
        requestOptions,
        {
          destination,
          options,
          onCancel,
          callback: (error) => (error == null ? resolve(destination) : reject(error)),
          responseHandler: null,
        },
        0,
      );
    });
  }
  createRequest(
    options: RequestOptions & { protocol?: string },
    callback: (res: http.IncomingMessage) => void,
  ) {
    return (options.protocol === 'https:' ? https.request : http.request)(options, callback);
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function feed(artifact: Buffer, advertised: Buffer) {
  const sha512 = createHash('sha512').update(advertised).digest('base64');
  const yml = [
    'version: 0.2.0',
    'files:',
    '  - url: treasury-desk_0.2.0_amd64.deb',
    `    sha512: ${sha512}`,
    `    size: ${advertised.length}`,
    'path: treasury-desk_0.2.0_amd64.deb',
    `sha512: ${sha512}`,
    "releaseDate: '2026-11-20T10:00:00.000Z'",
    'releaseNotes: <p>Keeps watching with the window closed.</p>',
    '',
  ].join('\n');
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url?.startsWith('/latest-linux.yml')) {
      res.writeHead(200, { 'content-type': 'text/yaml' }).end(yml);
    } else if (req.url === '/treasury-desk_0.2.0_amd64.deb') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': artifact.length });
      res.end(artifact);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests };
}

async function updaterFor(feedUrl: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'td-update-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const configPath = path.join(dir, 'app-update.yml');
  await writeFile(
    configPath,
    `provider: generic\nurl: ${feedUrl}\nupdaterCacheDirName: treasury-desk-updater\n`,
  );
  const quits: string[] = [];
  const app: AppAdapter = {
    version: '0.1.0',
    name: 'Treasury Desk',
    isPackaged: true,
    appUpdateConfigPath: configPath,
    userDataPath: path.join(dir, 'userData'),
    baseCachePath: path.join(dir, 'cache'),
    whenReady: async () => {},
    relaunch: () => quits.push('relaunch'),
    quit: () => quits.push('quit'),
    onQuit: () => {},
  };
  const updater = new DebUpdater(undefined, app);
  (updater as unknown as { httpExecutor: HttpExecutor<http.ClientRequest> }).httpExecutor =
    new NodeExecutor();
  updater.logger = null;
  const installed: string[] = [];
  // Installing runs dpkg through sudo: record the call instead (the decision is what is tested).
  updater.quitAndInstall = () => void installed.push('quitAndInstall');
  return { updater, dir, installed };
}

const log = { info: () => {}, warn: () => {} };

describe('updates on a loopback generic feed', () => {
  it('finds, downloads and sha512-checks the update, then asks and installs', async () => {
    const artifact = Buffer.from('a fake .deb of Treasury Desk 0.2.0\n'.repeat(2000));
    const f = await feed(artifact, artifact);
    expect(checkFeedUrl(f.url, { allowLoopbackHttp: true })).toEqual({ ok: true, url: f.url });
    // The packaged app's check (no loopback allowance) refuses the same plain-http feed.
    expect(checkFeedUrl(f.url)).toMatchObject({ ok: false, reason: 'feed URL must be https' });
    const { updater, dir, installed } = await updaterFor(f.url);
    const asked: Array<{ version: string; notes: string }> = [];
    const c = createUpdateController({
      updater,
      busy: createBusyGuard(),
      askToRestart: async (info) => (asked.push(info), true),
      log,
    });
    await c.check();
    expect(c.lastError()).toBeNull();
    expect(f.requests.some((r) => r.startsWith('/latest-linux.yml'))).toBe(true);
    expect(f.requests).toContain('/treasury-desk_0.2.0_amd64.deb');
    expect(asked).toEqual([{ version: '0.2.0', notes: 'Keeps watching with the window closed.' }]);
    expect(installed).toEqual(['quitAndInstall']);
    expect(c.phase()).toBe('installing');
    const pending = path.join(dir, 'cache', 'treasury-desk-updater', 'pending');
    expect(await readdir(pending)).toContain('treasury-desk_0.2.0_amd64.deb');
  });

  it('refuses a tampered artifact: nothing is offered or installed', async () => {
    const good = Buffer.from('the real artifact\n'.repeat(500));
    const tampered = Buffer.from(good);
    tampered[10] = tampered[10]! ^ 1;
    const f = await feed(tampered, good);
    const { updater, installed } = await updaterFor(f.url);
    const asked: unknown[] = [];
    const c = createUpdateController({
      updater,
      busy: createBusyGuard(),
      askToRestart: async (info) => (asked.push(info), true),
      log,
    });
    await c.check();
    expect(c.phase()).toBe('failed');
    expect(c.lastError()).toMatch(/sha512 checksum mismatch/);
    expect(asked).toEqual([]);
    expect(installed).toEqual([]);
  });

  it('defers the restart while an upload is in flight, and asks once it ends', async () => {
    const artifact = Buffer.from('another artifact\n'.repeat(800));
    const f = await feed(artifact, artifact);
    const { updater, installed } = await updaterFor(f.url);
    const busy = createBusyGuard();
    const asked: unknown[] = [];
    const c = createUpdateController({
      updater,
      busy,
      askToRestart: async (i) => (asked.push(i), true),
      log,
    });
    let finishUpload: () => void = () => {};
    const upload = busy.run(
      'an answer document is uploading',
      () => new Promise<void>((r) => (finishUpload = r)),
    );
    const checked = c.check();
    for (let i = 0; i < 200 && c.phase() !== 'waiting-for-idle'; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(c.phase()).toBe('waiting-for-idle');
    expect(asked).toEqual([]);
    expect(installed).toEqual([]);
    finishUpload();
    await upload;
    await checked;
    expect(asked).toHaveLength(1);
    expect(installed).toEqual(['quitAndInstall']);
  });

  it('accepts only https feeds, plain http to loopback', () => {
    expect(checkFeedUrl('https://updates.bank.example/treasury-desk/')).toMatchObject({ ok: true });
    expect(checkFeedUrl('http://127.0.0.1:8080/', { allowLoopbackHttp: true })).toMatchObject({ ok: true });
    expect(checkFeedUrl('http://127.0.0.1:8080/')).toMatchObject({ ok: false });
    expect(checkFeedUrl('http://[::1]:8080/', { allowLoopbackHttp: true })).toMatchObject({ ok: true });
    expect(checkFeedUrl('http://[::1]:8080/')).toMatchObject({ ok: false });
    for (const bad of [
      'http://updates.bank.example/',
      'http://127.0.0.1.evil.example/',
      'https://user:pw@updates.bank.example/',
      'https://updates.bank.example/?x=1',
      'ftp://updates.bank.example/',
      'file:///tmp/feed',
      '',
      undefined,
      'not a url',
    ]) {
      expect(checkFeedUrl(bad), String(bad)).toMatchObject({ ok: false });
    }
  });
});
