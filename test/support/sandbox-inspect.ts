/**
 * Reads the sandbox's own state directly (not through the proxy, not through the app): the
 * ground truth reliability scenarios assert on.
 */
import { SandboxDocument, SandboxTransactionList } from '../../src/shared/api/sandbox';
import type { z } from 'zod';

export type SandboxTransactions = z.infer<typeof SandboxTransactionList>['data'];

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

async function send(url: string, method: string, body: unknown, token?: string): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

export function sandboxInspector(baseUrl: string) {
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
