/**
 * Reads the sandbox's own state directly (not through the proxy, not through the app): the
 * ground truth reliability scenarios assert on.
 */
import { SANDBOX_CONTROL_HEADER } from '../../../src/shared/api/routes';
import { SandboxDocument, SandboxTransactionList } from '../../../src/shared/api/sandbox';
import type { z } from 'zod';

export type SandboxTransactions = z.infer<typeof SandboxTransactionList>['data'];

/** The sandbox to inspect: its URL and its control secret (sent on every request to it). */
export interface InspectedSandbox {
  url: string;
  controlSecret: string;
}

async function getJsonWith(url: string, secret: string): Promise<unknown> {
  const res = await fetch(url, {
    headers: { [SANDBOX_CONTROL_HEADER]: secret },
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

async function sendWith(
  secret: string,
  url: string,
  method: string,
  body: unknown,
  token?: string,
): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      [SANDBOX_CONTROL_HEADER]: secret,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

export function sandboxInspector(sandbox: InspectedSandbox) {
  const baseUrl = sandbox.url;
  const secret = sandbox.controlSecret;
  const getJson = (url: string) => getJsonWith(url, secret);
  const send = (url: string, method: string, body: unknown, token?: string) =>
    sendWith(secret, url, method, body, token);
  return {
    async transactions(): Promise<SandboxTransactions> {
      return SandboxTransactionList.parse(await getJson(`${baseUrl}/v1/sandbox/transactions`)).data;
    },
    async document(id: string): Promise<z.infer<typeof SandboxDocument>> {
      return SandboxDocument.parse(
        await getJson(`${baseUrl}/v1/sandbox/documents/${encodeURIComponent(id)}`),
      );
    },
    async rfi(id: string, token: string): Promise<unknown> {
      const res = await fetch(`${baseUrl}/v1/rfis/${encodeURIComponent(id)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (res.status !== 200) throw new Error(`GET rfi ${id}: ${res.status}`);
      return (await res.json()) as unknown;
    },
    async incomingTransfer(body: Record<string, unknown>): Promise<{ transaction_id: string }> {
      return (await send(`${baseUrl}/v1/sandbox/incoming-transfers`, 'POST', body)) as {
        transaction_id: string;
      };
    },
    async advanceClock(seconds: number): Promise<void> {
      await send(`${baseUrl}/v1/sandbox/clock`, 'POST', { advance_seconds: seconds });
    },
    async createRfi(
      body: Record<string, unknown>,
    ): Promise<{ id: string; questions: Array<{ id: string }> }> {
      return (await send(`${baseUrl}/v1/sandbox/rfis`, 'POST', body)) as {
        id: string;
        questions: Array<{ id: string }>;
      };
    },
    send,
  };
}
