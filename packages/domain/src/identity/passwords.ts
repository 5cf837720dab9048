import { hash, verify } from '@node-rs/argon2';

/** What an account's fields may hold, wherever an account is made (the API, `agov keys create`). */
export const ACCOUNT_LIMITS = { nameMaxLength: 200, emailMaxLength: 254, password: { minLength: 12, maxLength: 1024 } } as const;

// @node-rs/argon2 defaults to argon2id with OWASP's recommended cost (m=19 MiB, t=2, p=1).
export const hashPassword = (password: string) => hash(password);

/** A real hash to verify against when the account does not exist, so both paths cost the same. */
const decoy = hash('decoy-password-for-timing');

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
