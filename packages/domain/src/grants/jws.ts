import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { GrantPublicJwk } from '@agov/db';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** The JWS `typ` of a grant: explicit typing (RFC 8725 §3.11), so no other JWT of the tenant passes for one. */
export const GRANT_TYPE = 'agov-grant+jwt';

/** A new Ed25519 key pair: its id (the RFC 7638 thumbprint of the public key), the public JWK as published, and the private JWK to seal. */
export async function newGrantKeyPair(): Promise<{ kid: string; publicJwk: GrantPublicJwk; privateJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  const { x } = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: x! }, 'sha256');
  return { kid, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid, alg: 'EdDSA', use: 'sig' }, privateJwk: await exportJWK(privateKey) };
}

/** The private key of a sealed JWK, imported once so that each signature costs only the signing. */
export const importPrivateKey = (privateJwk: string): KeyObject => createPrivateKey({ key: JSON.parse(privateJwk), format: 'jwk' });

/** The compact JWS of a grant's claims; `iat`, `exp` and `jti` are among them. */
export function signGrant(claims: Record<string, unknown>, kid: string, privateKey: KeyObject): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: GRANT_TYPE, kid }).sign(privateKey);
}
