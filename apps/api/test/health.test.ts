import { describe, expect, it } from 'vitest';
import { useTestApp } from './harness.js';

const t = useTestApp();

describe('GET /health', () => {
  it('answers 200 without authentication when the database answers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });
});
