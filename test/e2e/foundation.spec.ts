import { test, expect } from './fixtures';

test.describe('foundation', () => {
  test('shows the environment, legal entity and role that main obtained from the bank', async ({
    app,
    harness,
  }) => {
    const entityA = harness.services.sandbox?.fixtures.legal_entities[0];
    expect(entityA).toBeDefined();
    await expect(app.getByTestId('connection-state')).toHaveText('Connected');
    await expect(app.getByTestId('connection-environment')).toHaveText('Embedded sandbox');
    await expect(app.getByTestId('connection-legal-entity')).toContainText(entityA!.id);
    await expect(app.getByTestId('connection-role')).toHaveText('Admin');
  });

  test('the page gets window.desk with invoke and subscribe only, and no Node', async ({ app }) => {
    const surface = await app.evaluate(() => ({
      keys: Object.keys((window as unknown as { desk: object }).desk).sort(),
      frozen: Object.isFrozen((window as unknown as { desk: object }).desk),
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
    }));
    expect(surface).toEqual({
      keys: ['invoke', 'subscribe'],
      frozen: true,
      require: 'undefined',
      process: 'undefined',
    });
  });

  test('a wrong-shaped argument comes back as a clear invalid_argument error', async ({ app }) => {
    const answer = await app.evaluate(() =>
      (window as unknown as { desk: { invoke(c: string, a: unknown): Promise<unknown> } }).desk.invoke(
        'session.status',
        {
          role: 'admin',
        },
      ),
    );
    expect(answer).toMatchObject({ ok: false, error: { kind: 'invalid_argument' } });
  });

  test('a frame inside the app cannot call main', async ({ app }) => {
    const answer = await app.evaluate(async () => {
      const iframe = document.createElement('iframe');
      iframe.srcdoc = '<p>embedded</p>';
      document.body.appendChild(iframe);
      await new Promise((r) => iframe.addEventListener('load', r, { once: true }));
      const w = iframe.contentWindow as unknown as {
        __deskInvoke: (c: string, a: unknown) => Promise<unknown>;
        desk?: unknown;
      };
      return { desk: typeof w.desk, answer: await w.__deskInvoke('session.status', undefined) };
    });
    expect(answer.desk).toBe('undefined');
    expect(answer.answer).toMatchObject({ ok: false, error: { kind: 'forbidden_sender' } });
  });

  test('a page of another origin cannot call main', async ({ harness, context }) => {
    await harness.attach(context);
    const page = await context.newPage();
    await page.route('http://foreign.test/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<html><body>foreign</body></html>' }),
    );
    await page.goto('http://foreign.test/');
    const answer = await page.evaluate(() =>
      (window as unknown as { __deskInvoke: (c: string, a: unknown) => Promise<unknown> }).__deskInvoke(
        'session.status',
        undefined,
      ),
    );
    expect(answer).toMatchObject({ ok: false, error: { kind: 'forbidden_sender' } });
  });

  test('the Content-Security-Policy blocks inline and remote scripts', async ({ harness, context }) => {
    await harness.attach(context);
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    const response = await page.goto(harness.url);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect(page.getByTestId('connection-state')).toHaveText('Connected');
    const ran = await page.evaluate(async () => {
      const w = window as unknown as { __inline?: number; __remote?: number };
      const inline = document.createElement('script');
      inline.textContent = 'window.__inline = 1';
      document.head.appendChild(inline);
      const remote = document.createElement('script');
      remote.src = 'https://cdn.example.com/x.js';
      document.head.appendChild(remote);
      await new Promise((r) => setTimeout(r, 200));
      return { inline: w.__inline ?? null, remote: w.__remote ?? null };
    });
    expect(ran).toEqual({ inline: null, remote: null });
    expect(violations.some((v) => /Content Security Policy/i.test(v))).toBe(true);
  });
});
