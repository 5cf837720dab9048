/** The enumerated values of an agent's profile, as the spec lists them. */
export const AGENT_ENVIRONMENTS = ['dev', 'test', 'prod'] as const;
export const AUTHORITY_MODELS = ['self', 'delegated', 'hybrid'] as const;
export const IDENTITY_MODES = ['service_identity', 'delegated_identity', 'hybrid_identity'] as const;
export const DELEGATION_MODELS = ['self', 'on_behalf_of_user', 'on_behalf_of_owner', 'mixed'] as const;
export const AUTONOMY_TIERS = ['low', 'medium', 'high'] as const;
export const LIFECYCLE_STATES = ['active', 'suspended', 'revoked'] as const;
/** Shared by authorized integrations, policy rules and evaluate requests. */
export const DATA_CLASSIFICATIONS = ['public', 'internal', 'confidential', 'restricted'] as const;

export type AgentEnvironment = (typeof AGENT_ENVIRONMENTS)[number];
export type AuthorityModel = (typeof AUTHORITY_MODELS)[number];
export type IdentityMode = (typeof IDENTITY_MODES)[number];
export type DelegationModel = (typeof DELEGATION_MODELS)[number];
export type AutonomyTier = (typeof AUTONOMY_TIERS)[number];
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
export type DataClassification = (typeof DATA_CLASSIFICATIONS)[number];
