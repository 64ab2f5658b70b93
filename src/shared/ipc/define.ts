import { z } from 'zod';

/**
 * A channel is a request/response call from the renderer to main. `args` validates what the
 * renderer sends (strict: unknown keys are refused); `result` describes what main answers and is
 * checked in tests so the renderer's types stay honest.
 */
export interface ChannelDef<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly summary: string;
  readonly args: A;
  readonly result: R;
}

/** A push event from main to the renderer. */
export interface EventDef<P extends z.ZodType = z.ZodType> {
  readonly summary: string;
  readonly payload: P;
}

export function channel<A extends z.ZodType, R extends z.ZodType>(def: ChannelDef<A, R>): ChannelDef<A, R> {
  return def;
}

export function event<P extends z.ZodType>(def: EventDef<P>): EventDef<P> {
  return def;
}

/** Argument schema of a channel that takes nothing. */
export const noArgs = z.undefined();

/** Result schema of a channel that answers nothing. */
export const noResult = z.null();
