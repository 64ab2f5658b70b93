import { CANONICAL_STATUS } from '../shared/api/common';

/** A refusal with the error body of docs/api-decisions.md. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly reason?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): { error: { code: string; status: string; message: string; reason?: string } } {
    return errorBody(this.statusCode, this.message, this.reason);
  }
}

export function errorBody(
  statusCode: number,
  message: string,
  reason?: string,
): { error: { code: string; status: string; message: string; reason?: string } } {
  return {
    error: {
      code: String(statusCode),
      status: CANONICAL_STATUS[statusCode] ?? (statusCode >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
      message,
      ...(reason ? { reason } : {}),
    },
  };
}

export const badRequest = (message: string, reason?: string) => new ApiError(400, message, reason);
export const notFound = (message: string) => new ApiError(404, message);
export const forbidden = (message: string, reason?: string) => new ApiError(403, message, reason);
export const precondition = (reason: string, message: string) => new ApiError(422, message, reason);
