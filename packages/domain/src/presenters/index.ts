// Row → the exact JSON the spec shows. Shared by the API and by webhook payloads, which carry
// the same shapes.
export * from './identity.js';
export * from './time.js';
export * from './agents.js';
export * from './policies.js';
export * from './approvals.js';
export * from './traces.js';
export * from './webhooks.js';
