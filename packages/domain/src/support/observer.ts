/**
 * What the domain reports for monitoring. The runtime turns it into metrics; the domain
 * stays free of any metrics library.
 */
export interface Observer {
  /** A webhook delivery attempt was recorded, with where it left the delivery. */
  deliveryAttempted(status: 'delivered' | 'retrying' | 'failed'): void;
}
