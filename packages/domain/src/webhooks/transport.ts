import type { SendResult } from '../support/send-result.js';

/** One signed POST to a webhook receiver. */
export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * What came of one POST. A success is a 2xx answer within the time limit; a failure says why
 * not (a refused address, a timeout, a connection failure, a redirect, a non-2xx status) and
 * never quotes the receiver's response body. Either carries the receiver's status when it
 * answered, and how long the post took.
 */
export type OutboundResult = SendResult<{ status: number }> & { durationMs: number };

/**
 * Sends webhooks. The implementation enforces the target policy on the address it actually
 * connects to (so DNS rebinding cannot reach a private address), follows no redirects and
 * reads at most a small prefix of any response.
 */
export interface WebhookTransport {
  post(request: OutboundRequest): Promise<OutboundResult>;
}
