/**
 * The renderer's typed access to main through the preload bridge (`window.desk`): channel calls,
 * push events, MainCallError for failures and the message to show for one.
 */

import type {
  ChannelArgs,
  ChannelName,
  ChannelResult,
  EventName,
  EventPayload,
} from '../../../shared/ipc/contract';
import type { AppError } from '../../../shared/ipc/errors';

/** A failed call, carrying the AppError main sent. */
export class MainCallError extends Error {
  readonly error: AppError;
  constructor(error: AppError) {
    super(error.message);
    this.name = 'MainCallError';
    this.error = error;
  }
}

function api(): Window['desk'] {
  const d = (globalThis as { desk?: Window['desk'] }).desk;
  if (!d)
    throw new MainCallError({ kind: 'internal', message: 'The app core is not connected to this window.' });
  return d;
}

/** Calls a channel; resolves with its value or throws MainCallError. */
export async function call<C extends ChannelName>(
  channel: C,
  args: ChannelArgs<C>,
): Promise<ChannelResult<C>> {
  const answer = await api().invoke(channel, args);
  if (answer.ok) return answer.value;
  throw new MainCallError(answer.error);
}

/** Subscribes to a push event; returns the unsubscribe function. */
export function on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
  return api().subscribe(event, listener);
}

/** The message to show for any failure. */
export function errorMessage(err: unknown): string {
  if (err instanceof MainCallError) return err.error.message;
  if (err instanceof Error) return err.message;
  return 'Something went wrong.';
}
