export * from './identity.js';
export * from './agents.js';
export * from './policies.js';
export * from './traces.js';
export * from './approvals.js';
export * from './webhooks.js';
export * from './tenancy.js';
export * from './outbox.js';
