import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../api/test/harness.js';
import { API_TYPES_FILE, apiTypesSource } from '../scripts/api-types.js';

describe("the dashboard's API types", () => {
  const testApp = useTestApp();

  it("are generated from the service's current OpenAPI document (run `npm run api-types -w @agov/web` after changing a schema)", async () => {
    const document = (await testApp.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(readFileSync(API_TYPES_FILE, 'utf8')).toBe(await apiTypesSource(document));
  });
});
