import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { AppError } from '@agov/domain';

const shared: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false };

/**
 * Bodies are validated exactly as sent: no coercion and no silent stripping of unknown
 * fields. Query strings and path parameters arrive as text, so they may coerce.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = addFormats.default(new Ajv({ ...shared, coerceTypes: false }));
  const textParts = addFormats.default(new Ajv({ ...shared, coerceTypes: true }));
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? bodies : textParts).compile(schema),
  );

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
