import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { AppError } from '@agov/domain';
import { FREEFORM_KEYWORD, FREEFORM_MAX_BYTES, FREEFORM_MAX_DEPTH } from '../schemas/common.js';

const shared: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };

/**
 * Bodies are validated exactly as sent: no coercion and no silent stripping of unknown
 * fields. Query strings and path parameters arrive as text, so they may coerce.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = addFormats.default(new Ajv({ ...shared, coerceTypes: false }));
  bodies.addKeyword({ keyword: FREEFORM_KEYWORD, schemaType: 'boolean', errors: true, validate: validateFreeform });
  const textParts = addFormats.default(new Ajv({ ...shared, coerceTypes: true }));
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodies : textParts).compile(schema));

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Routes without a body (suspend, logout, …) accept an empty one whatever its Content-Type.
    if (text.trim() === '') return done(null, undefined);
    // PostgreSQL cannot store NUL in text or JSON; reject it for every field in one place.
    if (/\\u0000/i.test(text)) {
      return done(new AppError('validation_error', 'Text must not contain the NUL character (\\u0000)'), undefined);
    }
    parseJson(request, text, done);
  });
}

type FreeformValidator = ((schema: boolean, data: unknown) => boolean) & { errors?: { message: string }[] };

/** Free-form JSON (context, metadata, conditions, credential_config) is bounded in depth and size. */
const validateFreeform: FreeformValidator = (_schema, data) => {
  if (depthOf(data) > FREEFORM_MAX_DEPTH) {
    validateFreeform.errors = [{ message: `must be at most ${FREEFORM_MAX_DEPTH} levels deep` }];
    return false;
  }
  if (Buffer.byteLength(JSON.stringify(data)) > FREEFORM_MAX_BYTES) {
    validateFreeform.errors = [{ message: `must be at most ${FREEFORM_MAX_BYTES / 1024} KiB` }];
    return false;
  }
  return true;
};

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/** For actions that take no body: none, or an empty object. Anything else is refused, not ignored. */
export const noBody: preValidationHookHandler = async (request) => {
  const body = request.body;
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (body === undefined || (isObject && Object.keys(body).length === 0)) return;
  throw new AppError('validation_error', 'This endpoint takes no body', {
    fields: (isObject ? Object.keys(body) : ['(body)']).map((field) => ({ field, message: 'is not allowed' })),
  });
};
