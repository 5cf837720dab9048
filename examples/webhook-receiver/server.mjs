// A webhook receiver that acts only on deliveries signed with the endpoint's secret.
//
//   WEBHOOK_SECRET=<the 64 hex characters shown when the endpoint was created> PORT=3000 node examples/webhook-receiver/server.mjs
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@agov/sdk';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET');

const server = createServer(async (request, response) => {
  // The signature covers the body's exact bytes: read them before any parsing.
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  try {
    const envelope = await verifyWebhook(Buffer.concat(chunks), request.headers, secret);
    console.log(`received ${envelope.event} ${envelope.id}`);
    response.writeHead(204).end();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`refused: ${error.reason}`);
    response.writeHead(400, { 'content-type': 'text/plain' }).end(`${error.reason}\n`);
  }
});

server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`listening on http://${address}:${port}`);
});
process.on('SIGTERM', () => server.close());
