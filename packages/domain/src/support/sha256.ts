import { type BinaryLike, hash } from 'node:crypto';

// One call, no Hash object: evaluate hashes every audit event and every presented key.
export const sha256Hex = (value: BinaryLike) => hash('sha256', value, 'hex');

/** The form the audit chain, the action digest and policy revisions publish: `sha256:<hex>`. */
export const taggedSha256 = (value: BinaryLike) => `sha256:${sha256Hex(value)}`;
