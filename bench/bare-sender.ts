/**
 * The least a delivery can cost, in a process of its own as the worker is: posts one envelope
 * BARE_RATE times a second to BARE_URL with the service's own signing and transport, but with
 * no queue and no database. On SIGTERM it waits for the posts under way, prints
 * `{"sent":…,"failed":…}` and exits. `npm run bench` starts it; it is not meant to be run alone.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { deliveryHeaders } from '@agov/domain';
import { createWebhookTransport, webhookTargets } from '@agov/runtime';

const TICK_MS = 10;
const rate = Number(process.env.BARE_RATE);
const url = process.env.BARE_URL!;
const envelope = process.env.BARE_ENVELOPE!;
const transport = createWebhookTransport(webhookTargets('development'));
const secret = randomBytes(32).toString('hex');
const underWay = new Set<Promise<void>>();
let sent = 0;
let failed = 0;

function post() {
  const headers = deliveryHeaders(secret, randomUUID(), envelope, new Date());
  const posted = transport.post({ url, body: envelope, headers, timeoutMs: 10_000 }).then((result) => {
    underWay.delete(posted);
    if (!result.ok) failed += 1;
  });
  underWay.add(posted);
}

const started = performance.now();
const ticker = setInterval(() => {
  const due = Math.floor(((performance.now() - started) / 1000) * rate);
  for (; sent < due; sent += 1) post();
}, TICK_MS);

process.once('SIGTERM', async () => {
  clearInterval(ticker);
  await Promise.all(underWay);
  console.log(JSON.stringify({ sent, failed }));
  process.exit(0);
});
console.log('bare sender ready');
