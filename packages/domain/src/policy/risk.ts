export type RiskClassification = 'low' | 'medium' | 'high' | 'critical';

const LEVELS: readonly RiskClassification[] = ['low', 'medium', 'high', 'critical'];

// A Map, not an object literal, so a name such as "constructor" is unknown rather than inherited.
const BASE_LEVEL = new Map<string, number>([
  ['public', 0],
  ['internal', 1],
  ['confidential', 2],
  ['restricted', 3],
]);

/**
 * The risk shown to reviewers of an approval: the sensitivity of the data, raised one level
 * when the agent acts with high autonomy or in production. Both together still raise it
 * only once, so the scale keeps its meaning instead of saturating at critical.
 */
export function riskClassification(dataClassification: string, agent: { autonomyTier: string; environment: string }): RiskClassification {
  const base = BASE_LEVEL.get(dataClassification);
  // Requests are validated against the four classifications before they get here.
  if (base === undefined) throw new Error(`Unknown data classification "${dataClassification}"`);
  const raised = agent.autonomyTier === 'high' || agent.environment === 'prod';
  return LEVELS[Math.min(base + (raised ? 1 : 0), LEVELS.length - 1)]!;
}
