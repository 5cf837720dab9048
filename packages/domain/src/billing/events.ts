import type { SubscriptionRow } from '@agov/db';

/**
 * A verified event of the payment provider, as the domain reads it. The runtime's adapter
 * (runtime/src/stripe-events.ts) writes one for each delivery, so the provider's field names
 * and the places they moved to between its API versions stay at the edge; `receiveProviderEvent`
 * applies it.
 */
export interface BillingEventReading {
  /** The provider's event id: a second delivery of it is a duplicate. */
  eventId: string;
  /** The provider's name for the event, recorded and logged as it is. */
  eventType: string;
  /** When the provider created the event: one older than the last applied to a subscription is stale. */
  createdAt: Date;
  /**
   * What the event says about a tenant's subscription; null for the types that move no
   * subscription (spec: Subscription status), which are answered and not even recorded.
   */
  subscription: SubscriptionEventReading | null;
}

export interface SubscriptionEventReading {
  subject: EventSubject;
  /** What the event asks to change; null when it asks for nothing (a session that is not one of ours). */
  change: SubscriptionChange | null;
  /** A completed checkout starts a new subscription; other events concern the tenant's current one. */
  startsSubscription: boolean;
}

/** Who an event is about, as the event names them. */
export interface EventSubject {
  /** The tenant the event names (its metadata, or the checkout's reference): unchecked text from the event. */
  tenantReference: string | null;
  /** The provider's customer and subscription ids, when the event names ids of the provider's shape. */
  customerId: string | null;
  subscriptionId: string | null;
}

/** The fields an event may set; what it does not say stays as it is. */
export type SubscriptionChange = Partial<
  Pick<SubscriptionRow, 'plan' | 'status' | 'currentPeriodEnd' | 'cancelAtPeriodEnd' | 'providerCustomerId' | 'providerSubscriptionId'>
>;
