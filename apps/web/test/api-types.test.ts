import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../api/test/harness.js';
import { API_TYPES_FILE, apiTypesSource } from '../scripts/api-types.js';

describe("the dashboard's API types", () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await createTestApp();
  });
  afterAll(() => testApp.close());

  it("are generated from the service's current OpenAPI document (run `npm run api-types -w @agov/web` after changing a schema)", async () => {
    const document = (await testApp.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(readFileSync(API_TYPES_FILE, 'utf8')).toBe(await apiTypesSource(document));
  });
});
