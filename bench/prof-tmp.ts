import { randomUUID } from 'node:crypto';
import { drive } from './load.js';
import { freshDatabase, startService, startWorker } from './support.js';
import { seedTenant } from './tenant.js';
const which = process.env.WHICH ?? 'history';
const database = await freshDatabase();
const env = { NODE_ENV: 'development', REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: `agov-bench-${randomUUID()}` };
const service = await startService(database.url, { env, nodeFlags: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-' + which] });
const worker = await startWorker(database.url, env);
const seeded = await seedTenant(service.url, null);
const body = which === 'history' ? seeded.historyAction : seeded.allowAction;
await drive(service.url, seeded.auth, { title: 'x', path: '/api/v1/evaluate', body, expect: (b) => b.decision === 'allow' }, 3);
const row = await drive(
  service.url,
  seeded.auth,
  { title: 'x', path: '/api/v1/evaluate', body, expect: (b) => b.decision === 'allow' },
  15,
);
console.log(row);
await worker.stop();
await service.stop();
await database.drop();
