import type { components } from './generated/openapi.js';

/** A named schema of the contract: `Schema<'Approval'>`, `Schema<'TraceExport'>`, `Schema<'Error'>`, … */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
