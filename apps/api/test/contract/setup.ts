import { afterAll, afterEach } from 'vitest';
import { failOnViolations } from './violations.js';

// A response that breaks the document fails the test that received it; one received outside
// a test (a beforeAll's sign-up, an afterAll's clean-up) fails the file.
afterEach(failOnViolations);
afterAll(failOnViolations);
