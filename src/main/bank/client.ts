import got from 'got';
import type { z } from 'zod';
import { DeskFailure } from '../../shared/ipc/errors';
import { webhookConfigSchema } from '../../shared/api';
import type { Logger } from '../log';
import { failureFromResponse, offlineFailure } from './errors';

export interface BankClientOptions {
  baseUrl: string;
  /** The bearer token, read from the vault per request; null when none is stored. */
  getToken(): Promise<string | null>;
  log: Logger;
  timeoutMs?: number;
}

export interface RequestOptions<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  schema: S;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The bank API client: every call goes through `request`, which attaches the token, maps every
 * failure to a DeskFailure and validates the answer against the shared schema (a malformed answer
 * is an error naming the field).
 */
export class BankClient {
  readonly baseUrl: string;
  private readonly options: BankClientOptions;

  constructor(options: BankClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  async request<S extends z.ZodType>(req: RequestOptions<S>): Promise<z.output<S>> {
    const token = await this.options.getToken();
    if (!token) throw new DeskFailure({ kind: 'unauthenticated', message: 'No token is stored for this environment.' });
    let response;
    try {
      response = await got(`${this.baseUrl}${req.path}`, {
        method: req.method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...req.headers },
        ...(req.body !== undefined ? { json: req.body } : {}),
        throwHttpErrors: false,
        retry: { limit: 0 },
        timeout: { request: this.options.timeoutMs ?? 15_000 },
        responseType: 'text',
      });
    } catch (err) {
      throw offlineFailure(err);
    }
    let body: unknown = null;
    if (response.body) {
      try {
        body = JSON.parse(response.body);
      } catch {
        if (response.statusCode < 300) {
          throw new DeskFailure({ kind: 'server', status: response.statusCode, message: 'The bank answered with something that is not JSON.' });
        }
      }
    }
    if (response.statusCode >= 300) {
      const retryAfter = response.headers['retry-after'];
      throw failureFromResponse(response.statusCode, body, typeof retryAfter === 'string' ? retryAfter : undefined);
    }
    const parsed = req.schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue ? issue.path.map(String).join('.') : '';
      this.options.log.warn('bank: malformed answer', { path: req.path, issues: parsed.error.issues.slice(0, 5) });
      throw new DeskFailure({
        kind: 'invalid',
        status: response.statusCode,
        field,
        message: `The bank's answer to ${req.method} ${req.path.split('?')[0]} is malformed at "${field || '(body)'}": ${issue?.message ?? 'unexpected shape'}.`,
      });
    }
    return parsed.data;
  }

  /** GET /v1/webhook/url: the credential's webhook configuration (name, URL, legal entity, role). */
  getWebhookConfig(): Promise<z.output<typeof webhookConfigSchema>> {
    return this.request({ method: 'GET', path: '/v1/webhook/url', schema: webhookConfigSchema });
  }
}
