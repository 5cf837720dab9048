import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { AppError } from '@agov/domain';
import { FORMATS, FREEFORM_KEYWORD, FREEFORM_MAX_BYTES, FREEFORM_MAX_DEPTH } from '../schemas/common.js';

// `discriminator`: a oneOf whose branches are told apart by a field reports the chosen branch's problems only.
const shared: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false, discriminator: true };

/** An Ajv with the standard formats, `uuid` and `date-time` read our way (see FORMATS). */
function ajvWith(options: Options): Ajv {
  const ajv = addFormats.default(new Ajv({ ...shared, ...options }));
  for (const [name, format] of Object.entries(FORMATS)) ajv.addFormat(name, format);
  return ajv;
}

/**
 * Bodies are validated exactly as sent: no coercion and no silent stripping of unknown
 * fields. Query strings and path parameters arrive as text, so they may coerce.
 */
export function installValidation(app: FastifyInstance): void {
  const bodies = ajvWith({ coerceTypes: false });
  bodies.addKeyword({ keyword: FREEFORM_KEYWORD, schemaType: 'boolean', errors: true, validate: validateFreeform });
  const textParts = ajvWith({ coerceTypes: true });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodies : textParts).compile(schema));

  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    // Routes without a body (suspend, logout, …) accept an empty one whatever its Content-Type.
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      // Only an escape can put NUL or a lone surrogate into parsed JSON (raw, they are invalid JSON or UTF-8).
      const problem = UNSTORABLE_ESCAPE.test(text) ? unstorableText(value, '(body)') : null;
      if (problem) return done(invalidText('body', problem), undefined);
      done(null, value);
    });
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const problem = unstorableText(request.query, '(querystring)');
    done(problem ? invalidText('querystring', problem) : undefined);
  });
}

type FreeformValidator = ((schema: boolean, data: unknown) => boolean) & { errors?: { message: string }[] };

/** Free-form JSON (context, metadata, conditions, credential_config) is bounded in depth and size. */
const validateFreeform: FreeformValidator = (_schema, data) => {
  if (deeperThan(data, FREEFORM_MAX_DEPTH)) {
    validateFreeform.errors = [{ message: `must be at most ${FREEFORM_MAX_DEPTH} levels deep` }];
    return false;
  }
  if (Buffer.byteLength(JSON.stringify(data)) > FREEFORM_MAX_BYTES) {
    validateFreeform.errors = [{ message: `must be at most ${FREEFORM_MAX_BYTES / 1024} KiB` }];
    return false;
  }
  return true;
};

/**
 * Whether objects and arrays nest more than `limit` levels (`{}` is one). Iterative, and it
 * looks no deeper than `limit + 1`: a 1 MiB body can nest half a million levels, more
 * than the call stack holds.
 */
function deeperThan(root: unknown, limit: number): boolean {
  const pending: [value: unknown, depth: number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return false;
}

/** `\u0000` or `\uD800`–`\uDFFF` in JSON text; a false alarm (`\\u0000`) only costs a walk. */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface FieldProblem {
  field: string;
  message: string;
}

/** What PostgreSQL refuses in text and jsonb: NUL, and UTF-16 surrogates that pair with nothing. */
function textFlaw(text: string): string | null {
  if (text.includes('\u0000')) return 'the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'an unpaired UTF-16 surrogate';
  return null;
}

interface Visit {
  value: unknown;
  key: string | null;
  parent: Visit | null;
}

/**
 * The first string, or object key, PostgreSQL would refuse, named by its path (`metadata.tags.0`).
 * Iterative for the same reason as `deeperThan`; paths are built only for the one reported.
 */
function unstorableText(root: unknown, rootName: string): FieldProblem | null {
  const pending: Visit[] = [{ value: root, key: null, parent: null }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    if (typeof visit.value === 'string') {
      const flaw = textFlaw(visit.value);
      if (flaw) return { field: pathOf(visit, rootName), message: `must not contain ${flaw}` };
    } else if (typeof visit.value === 'object' && visit.value !== null) {
      for (const [key, value] of Object.entries(visit.value)) {
        const flaw = textFlaw(key);
        if (flaw) return { field: pathOf(visit, rootName), message: `must not have a key containing ${flaw}` };
        pending.push({ value, key, parent: visit });
      }
    }
  }
  return null;
}

function pathOf(visit: Visit, rootName: string): string {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at?.key != null; at = at.parent) keys.push(at.key);
  return keys.reverse().join('.') || rootName;
}

const invalidText = (part: 'body' | 'querystring', problem: FieldProblem) =>
  new AppError('validation_error', `Invalid ${part}: ${problem.field} ${problem.message}`, { fields: [problem] });

/** For actions that take no body: none, or an empty object. Anything else is refused, not ignored. */
export const noBody: preValidationHookHandler = async (request) => {
  const body = request.body;
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (body === undefined || (isObject && Object.keys(body).length === 0)) return;
  throw new AppError('validation_error', 'This endpoint takes no body', {
    fields: (isObject ? Object.keys(body) : ['(body)']).map((field) => ({ field, message: 'is not allowed' })),
  });
};
