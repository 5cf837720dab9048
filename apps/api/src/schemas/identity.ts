import { Type } from '@sinclair/typebox';
import { ACCOUNT_LIMITS, ROLES, SCOPES } from '@agov/domain';
import { Body, NullableTimestamp, PatchBody, StringEnum, Text, Timestamp } from './common.js';

export const Email = Type.String({ format: 'email', maxLength: ACCOUNT_LIMITS.emailMaxLength, examples: ['ada@example.com'] });
const Password = Type.String({ ...ACCOUNT_LIMITS.password, examples: ['correct horse battery staple'] });
const Role = StringEnum(ROLES);
const ScopeName = StringEnum(SCOPES);

const Name = Text(ACCOUNT_LIMITS.nameMaxLength);

export const SignupBody = Body({ organization_name: Name, name: Name, email: Email, password: Password });
export const LoginBody = Body({ email: Email, password: Type.String({ minLength: 1, maxLength: 1024 }) });
export const CreateUserBody = Body({ name: Name, email: Email, password: Password, role: Role });
export const UpdateUserBody = PatchBody({ name: Name, email: Email, password: Password, role: Role });

export const CreateApiKeyBody = Body({
  name: Text(),
  scopes: Type.Array(ScopeName, { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
  expires_at: Type.Optional(NullableTimestamp),
});

export const Tenant = Type.Object({ id: Type.String(), name: Type.String() }, { title: 'Tenant' });
export const User = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    name: Type.String(),
    role: Role,
    created_at: Timestamp,
  },
  { title: 'User' },
);

const apiKeyFields = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  key_prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  last_used_at: NullableTimestamp,
  created_at: Timestamp,
  expires_at: NullableTimestamp,
};
export const ApiKey = Type.Object(apiKeyFields, { title: 'ApiKey' });
export const IssuedApiKey = Type.Object({ ...apiKeyFields, key: Type.String() }, { title: 'IssuedApiKey' });
