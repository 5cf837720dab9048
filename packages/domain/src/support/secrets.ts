import { randomBytes } from 'node:crypto';

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

export const randomToken = () => randomBytes(32).toString('base64url');
