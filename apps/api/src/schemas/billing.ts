import { Type } from '@sinclair/typebox';
import { CHECKOUT_PLANS } from '@agov/domain';
import { Body, StringEnum, Timestamp } from './common.js';

export const CheckoutBody = Body({ plan: StringEnum(CHECKOUT_PLANS) });

/** A page of the payment provider's to send the user to; flat, as the spec shows it. */
export const HostedPage = Type.Object({ url: Type.String() }, { title: 'HostedPage' });

export const Subscription = Type.Object(
  {
    plan: Type.String(),
    status: Type.String(),
    current_period_end: Timestamp,
    cancel_at_period_end: Type.Boolean(),
  },
  { title: 'Subscription' },
);

/** The webhook's answer; the provider only looks at the status. */
export const EventAcknowledged = Type.Object({ received: Type.Boolean() });
