export { bullmqBackend } from './bullmq.js';
export { InProcessBackend } from './in-process.js';
export { startDispatch, type Dispatch, type DispatchOptions } from './dispatch.js';
export type { JobBackend } from './backend.js';
export { QUEUES, type QueueName } from './catalog.js';
