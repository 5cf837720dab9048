import { createHash, randomBytes } from 'node:crypto';

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

export const randomToken = () => randomBytes(32).toString('base64url');
