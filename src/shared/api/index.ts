/**
 * The bank interface shared by the app and the embedded sandbox: the zod schemas, the route table
 * and the OpenAPI document built from them.
 */

export * from './common';
export * from './transactions';
export * from './rfis';
export * from './documents';
export * from './webhooks';
export * from './sandbox';
export * from './routes';
export * from './openapi';
