/** One signed POST to a webhook receiver. */
export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * What came of one POST. `ok` is a 2xx answer within the time limit; `error` says why not
 * (a refused address, a timeout, a connection failure, a redirect, a non-2xx status) and
 * never quotes the receiver's response body.
 */
export interface OutboundResult {
  ok: boolean;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** No answer within the time limit: the one failure that holds a sender for the whole limit. */
  timedOut: boolean;
}

/**
 * Sends webhooks. The implementation enforces the target policy on the address it actually
 * connects to (so DNS rebinding cannot reach a private address), follows no redirects and
 * reads at most a small prefix of any response.
 */
export interface WebhookTransport {
  post(request: OutboundRequest): Promise<OutboundResult>;
}
