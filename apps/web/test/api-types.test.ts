import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource } from '../scripts/api-types.js';

describe("the dashboard's API types", () => {
  it('are generated from the committed contract (run `npm run contract:write` after changing a route or schema)', async () => {
    expect(readFileSync(API_TYPES_FILE, 'utf8')).toBe(await apiTypesSource());
  });
});
