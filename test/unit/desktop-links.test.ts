import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BANK_ID_RE } from '../../src/shared/api/common';
import { routePath } from '../../src/shared/ipc/channels/desktop';
import { linkInArgv, maxLinkLength, parseLink } from '../../src/main/electron/links/parse';

/** What any accepted link must be: one of three screens, with an id the reading channel accepts. */
function expectSafe(input: string): void {
  const r = parseLink(input);
  if (!r.ok) return;
  expect(['rfi', 'transaction', 'exchange']).toContain(r.route.screen);
  expect(r.route.id).toMatch(BANK_ID_RE);
  expect(r.route.id).not.toMatch(/^\.|[/%\\?#@]/);
  const path = decodeURIComponent(routePath(r.route));
  expect(path).toMatch(/^\/(rfis|returns|exchange)\/[A-Za-z0-9_.:~-]+$/);
  expect(path.split('/')).toHaveLength(3);
  expect(['new', 'accounts']).not.toContain(r.route.screen === 'exchange' ? r.route.id : '');
}

const idChars = fc.constantFrom(...'abcXYZ019_-.:~'.split(''));
const goodId = fc
  .array(idChars, { minLength: 1, maxLength: 40 })
  .map((cs) => cs.join(''))
  .filter((id) => BANK_ID_RE.test(id) && id !== 'new' && id !== 'accounts');
const hostile = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%2E%2E',
  '%2f',
  '..%2f..%2fetc',
  '%252e%252e',
  '\u2025',
  '\uff0e\uff0e',
  'ａｂｃ',
  'rfi\u0000x',
  '\\..\\',
  'a/b',
  'a?b=1',
  'a#frag',
  'user:pw@x',
  ' rfi_1',
  'rfi_1 ',
  '',
);

describe('treasury-desk:// links', () => {
  it('opens the three screens with valid ids', () => {
    expect(parseLink('treasury-desk://rfis/rfi_123')).toEqual({
      ok: true,
      route: { screen: 'rfi', id: 'rfi_123' },
    });
    expect(parseLink('treasury-desk://transactions/tx-9')).toEqual({
      ok: true,
      route: { screen: 'transaction', id: 'tx-9' },
    });
    expect(parseLink('treasury-desk://exchange/ord_1')).toEqual({
      ok: true,
      route: { screen: 'exchange', id: 'ord_1' },
    });
    // Windows appends a slash to protocol URLs; the scheme and screen are case-insensitive.
    expect(parseLink('TREASURY-DESK://RFIS/rfi_123/')).toEqual({
      ok: true,
      route: { screen: 'rfi', id: 'rfi_123' },
    });
    expect(routePath({ screen: 'transaction', id: 'tx-9' })).toBe('/returns/tx-9');
  });

  it.each([
    ['https://rfis/rfi_1', 'not a treasury-desk link'],
    ['treasury-desk:rfis/rfi_1', 'not a treasury-desk link'],
    ['treasury-desk:///rfis/rfi_1', 'unknown link shape'],
    ['treasury-desk://rfis/../settings', 'unknown link shape'],
    ['treasury-desk://rfis/..', 'invalid rfi id'],
    ['treasury-desk://rfis/%2e%2e', 'unknown link shape'],
    ['treasury-desk://rfis/a/b', 'unknown link shape'],
    ['treasury-desk://rfis/a?x=1', 'unknown link shape'],
    ['treasury-desk://rfis/a#x', 'unknown link shape'],
    ['treasury-desk://user:pw@rfis/a', 'unknown link shape'],
    ['treasury-desk://rfis:443/a', 'unknown link shape'],
    ['treasury-desk://settings/a', 'unknown link shape'],
    ['treasury-desk://rfis/', 'unknown link shape'],
    ['treasury-desk://exchange/new', 'reserved exchange id'],
    ['treasury-desk://exchange/has.dot', 'invalid exchange id'],
    [`treasury-desk://rfis/${'a'.repeat(maxLinkLength)}`, 'too long'],
    [42, 'not a string'],
  ])('refuses %s (%s)', (input, reason) => {
    expect(parseLink(input)).toEqual({ ok: false, reason });
  });

  it('accepts every well-formed link it is given, unchanged', () => {
    fc.assert(
      fc.property(fc.constantFrom('rfis', 'transactions', 'exchange'), goodId, (screen, id) => {
        const r = parseLink(`treasury-desk://${screen}/${id}`);
        if (screen === 'exchange' && id.includes('.')) expect(r.ok).toBe(false);
        else if (screen === 'exchange' && id.includes(':')) expect(r.ok).toBe(false);
        else if (screen === 'exchange' && id.includes('~')) expect(r.ok).toBe(false);
        else expect(r).toEqual({ ok: true, route: expect.objectContaining({ id }) });
      }),
    );
  });

  it('never yields anything but the three shapes with valid ids, whatever the input', () => {
    const prefix = fc.constantFrom(
      'treasury-desk://rfis/',
      'treasury-desk://transactions/',
      'treasury-desk://exchange/',
      'TREASURY-DESK://rfis/',
      'treasury-desk://',
      'treasury-desk:',
      'treasury-desk://user:secret@rfis/',
      'treasury-desk://rfis:8443/',
      'treasury-desk://rfis/../',
      'treasury-desk://rfis/%2e%2e/',
      'treasury-desk://rfis/..%2f',
      'https://bank.example/rfis/',
      'file:///etc/',
      'javascript:',
      '',
    );
    const tail = fc.oneof(
      hostile,
      goodId,
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.webSegment(),
      fc.webQueryParameters().map((q) => `x?${q}`),
      fc.webFragments().map((f) => `x#${f}`),
      fc.string({ minLength: maxLinkLength - 30, maxLength: maxLinkLength + 30 }),
    );
    fc.assert(
      fc.property(prefix, tail, fc.oneof(fc.constant(''), hostile, fc.constant('/')), (p, t, extra) => {
        expectSafe(`${p}${t}${extra}`);
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        expect(parseLink(url).ok).toBe(false);
      }),
    );
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 2000 }), (s) => expectSafe(s)));
  });

  it('finds the link in a command line, and only one with the scheme', () => {
    expect(linkInArgv(['/opt/Treasury Desk/treasury-desk', '--flag', 'treasury-desk://rfis/r1'])).toBe(
      'treasury-desk://rfis/r1',
    );
    expect(linkInArgv(['app', '--hidden'])).toBeNull();
    expect(linkInArgv(['app', 'https://evil.example/treasury-desk://rfis/r1'])).toBeNull();
  });
});
