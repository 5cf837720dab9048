import { Type } from '@sinclair/typebox';
import { MAX_DELEGATION_DAYS } from '@agov/domain';
import { Body, NullableTimestamp, Timestamp } from './common.js';
import { Email } from './identity.js';

export const CreateDelegationBody = Body({
  delegate_email: Email,
  starts_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the delegation begins; now when omitted' })),
  ends_at: Type.String({ format: 'date-time', description: `When it ends: after starts_at, at most ${MAX_DELEGATION_DAYS} days later` }),
  reason: Type.Optional(Type.String({ maxLength: 500 })),
});

export const DelegationListQuery = Type.Object({
  current: Type.Optional(Type.Boolean({ description: 'Only delegations neither ended nor revoked' })),
});

const Person = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() });

export const Delegation = Type.Object(
  {
    id: Type.String(),
    delegator: Person,
    delegate: Person,
    starts_at: Timestamp,
    ends_at: Timestamp,
    reason: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    revoked_at: NullableTimestamp,
  },
  { title: 'Delegation' },
);
