import { hash, verify } from '@node-rs/argon2';

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
