/**
 * The sandbox's staff and control endpoints (fixtures, clock, incoming transfers, staff RFI
 * actions, webhook deliveries), for tests and benches only: the app has no code for them. Calls
 * are typed and checked by the shared route table and carry the sandbox's per-run control secret,
 * never a bearer token.
 */
import { fillRoutePath, routes, SANDBOX_CONTROL_HEADER } from '../../src/shared/api';
import type { RouteId, RouteRequestBody, RouteResponse } from '../../src/shared/api';

/** The sandbox to talk to: its URL and control secret (a RunningSandbox is one). */
export interface StaffTarget {
  readonly url: string;
  readonly controlSecret: string;
}

/** A failed control call: the sandbox's status and body, for the test's message. */
export class StaffCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what} answered ${status}: ${body.slice(0, 300)}`);
    this.name = 'StaffCallError';
  }
}

/** One sandbox route (control, or public like its webhook key): the path from the route table, the body checked by its schema, the answer parsed. */
export async function callControl<K extends RouteId>(
  target: StaffTarget,
  id: K,
  opts: { params?: Record<string, string>; body?: RouteRequestBody<K> } = {},
): Promise<RouteResponse<K>> {
  const route = routes[id];
  if (!route.path.startsWith('/v1/sandbox/')) throw new Error(`${id} is not a sandbox route.`);
  const path = fillRoutePath(route.path, opts.params ?? {});
  const what = `${route.method} ${path}`;
  const schema = (route as { body?: { parse(v: unknown): unknown } }).body;
  const body = opts.body === undefined ? undefined : schema ? schema.parse(opts.body) : opts.body;
  const res = await fetch(`${target.url.replace(/\/+$/, '')}${path}`, {
    method: route.method,
    headers: {
      accept: 'application/json',
      [SANDBOX_CONTROL_HEADER]: target.controlSecret,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new StaffCallError(res.status, text, what);
  return route.response.parse(text ? JSON.parse(text) : null) as RouteResponse<K>;
}

export type SandboxStaff = ReturnType<typeof sandboxStaff>;

/** Staff endpoints of one sandbox (given, or looked up at each call: the services' embedded one). */
export function sandboxStaff(target: StaffTarget | (() => StaffTarget)) {
  const at = (): StaffTarget => (typeof target === 'function' ? target() : target);
  return {
    getFixtures: () => callControl(at(), 'getFixtures'),
    getClock: () => callControl(at(), 'getClock'),
    advanceClock: (seconds: number) =>
      callControl(at(), 'advanceClock', { body: { advance_seconds: seconds } }),
    createIncomingTransfer: (body: RouteRequestBody<'createIncomingTransfer'> = {}) =>
      callControl(at(), 'createIncomingTransfer', { body }),
    listTransactions: () => callControl(at(), 'listSandboxTransactions'),
    listAccounts: () => callControl(at(), 'listSandboxAccounts'),
    getWebhookPublicKey: () => callControl(at(), 'getWebhookPublicKey'),
    listWebhookDeliveries: () => callControl(at(), 'listWebhookDeliveries'),
    getDocument: (documentID: string) => callControl(at(), 'getSandboxDocument', { params: { documentID } }),
    createRfi: (body: RouteRequestBody<'staffCreateRfi'>) => callControl(at(), 'staffCreateRfi', { body }),
    questionAction: (rfiID: string, questionID: string, body: RouteRequestBody<'staffQuestionAction'>) =>
      callControl(at(), 'staffQuestionAction', { params: { rfiID, questionID }, body }),
    adminResponse: (rfiID: string, questionID: string, body: RouteRequestBody<'staffAdminResponse'>) =>
      callControl(at(), 'staffAdminResponse', { params: { rfiID, questionID }, body }),
    rfiAction: (rfiID: string, body: RouteRequestBody<'staffRfiAction'>) =>
      callControl(at(), 'staffRfiAction', { params: { rfiID }, body }),
  };
}

/** The staff endpoints of the services' embedded sandbox (looked up at each call). */
export function staffOf(services: { readonly sandbox: StaffTarget | null }): SandboxStaff {
  return sandboxStaff(() => {
    if (!services.sandbox) throw new Error('No embedded sandbox is running.');
    return services.sandbox;
  });
}
