import { describe, expect, it } from 'vitest';
import { riskClassification } from './risk.js';

const cases = [
  // classification, autonomyTier, environment, expected: every combination the spec allows
  ['public', 'low', 'dev', 'low'],
  ['public', 'low', 'test', 'low'],
  ['public', 'low', 'prod', 'medium'],
  ['public', 'medium', 'dev', 'low'],
  ['public', 'medium', 'test', 'low'],
  ['public', 'medium', 'prod', 'medium'],
  ['public', 'high', 'dev', 'medium'],
  ['public', 'high', 'test', 'medium'],
  ['public', 'high', 'prod', 'medium'],
  ['internal', 'low', 'dev', 'medium'],
  ['internal', 'low', 'test', 'medium'],
  ['internal', 'low', 'prod', 'high'],
  ['internal', 'medium', 'dev', 'medium'],
  ['internal', 'medium', 'test', 'medium'],
  ['internal', 'medium', 'prod', 'high'],
  ['internal', 'high', 'dev', 'high'],
  ['internal', 'high', 'test', 'high'],
  ['internal', 'high', 'prod', 'high'],
  ['confidential', 'low', 'dev', 'high'],
  ['confidential', 'low', 'test', 'high'],
  ['confidential', 'low', 'prod', 'critical'],
  ['confidential', 'medium', 'dev', 'high'],
  ['confidential', 'medium', 'test', 'high'],
  ['confidential', 'medium', 'prod', 'critical'],
  ['confidential', 'high', 'dev', 'critical'],
  ['confidential', 'high', 'test', 'critical'],
  ['confidential', 'high', 'prod', 'critical'],
  ['restricted', 'low', 'dev', 'critical'],
  ['restricted', 'low', 'test', 'critical'],
  ['restricted', 'low', 'prod', 'critical'],
  ['restricted', 'medium', 'dev', 'critical'],
  ['restricted', 'medium', 'test', 'critical'],
  ['restricted', 'medium', 'prod', 'critical'],
  ['restricted', 'high', 'dev', 'critical'],
  ['restricted', 'high', 'test', 'critical'],
  ['restricted', 'high', 'prod', 'critical'],
] as const;

describe('riskClassification', () => {
  it.each(cases)('%s data, %s autonomy, %s environment → %s', (classification, autonomyTier, environment, expected) => {
    expect(riskClassification(classification, { autonomyTier, environment })).toBe(expected);
  });

  it('refuses an unknown classification, including inherited property names', () => {
    expect(() => riskClassification('secret', { autonomyTier: 'low', environment: 'dev' })).toThrow(/Unknown data classification/);
    expect(() => riskClassification('constructor', { autonomyTier: 'low', environment: 'dev' })).toThrow(/Unknown data classification/);
  });
});
