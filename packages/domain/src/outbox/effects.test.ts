import { describe, expect, it } from 'vitest';
import { DELIVERIES_PER_EFFECT, deliveryEffects } from './effects.js';

describe('deliveryEffects', () => {
  it('sends deliveries in batches of DELIVERIES_PER_EFFECT, in order, the last one what is left', () => {
    const ids = Array.from({ length: 70 }, (_, i) => `delivery-${i}`);
    const effects = deliveryEffects(ids);
    expect(DELIVERIES_PER_EFFECT).toBe(32);
    expect(effects.map((effect) => (effect.kind === 'webhook_delivery' ? effect.deliveryIds.length : 0))).toEqual([32, 32, 6]);
    expect(effects.flatMap((effect) => (effect.kind === 'webhook_delivery' ? effect.deliveryIds : []))).toEqual(ids);
  });

  it('makes no effect for no deliveries', () => {
    expect(deliveryEffects([])).toEqual([]);
  });
});
