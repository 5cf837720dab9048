import { hash, randomBytes } from 'node:crypto';

// One call, no Hash object: evaluate hashes every audit event and every presented key.
export const sha256Hex = (value: string) => hash('sha256', value, 'hex');

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

export const randomToken = () => randomBytes(32).toString('base64url');
