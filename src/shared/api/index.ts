export * from './common';
export * from './transactions';
export * from './rfis';
export * from './documents';
export * from './webhooks';
export * from './sandbox';
export * from './routes';
export * from './openapi';
