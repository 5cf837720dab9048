import { type ObjectOptions, type Static, Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { DATA_CLASSIFICATIONS, type ErrorCode, instantOf, isUuid, POLICY_EFFECTS } from '@agov/domain';

/** A request body: unknown fields are rejected, never silently dropped. */
export const Body = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

/** A PATCH body: any subset of the fields, but at least one. */
export const PatchBody = <T extends TProperties>(properties: T) =>
  Type.Partial(Type.Object(properties), { additionalProperties: false, minProperties: 1 });

export const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/**
 * The earliest instant a stored timestamp reads back unchanged: the database layer parses
 * PostgreSQL's text with `new Date`, which reads years 0001–0099 as 1950–2049.
 */
const EARLIEST_READABLE = Date.parse('0100-01-01T00:00:00.000Z');

/**
 * What `uuid` and `date-time` mean in our schemas, replacing ajv-formats' readings, which
 * admit text PostgreSQL refuses: `urn:uuid:…` ids, leap seconds, offsets without minutes.
 */
export const FORMATS = {
  /** The hyphenated form only; PostgreSQL takes more, but nothing it refuses. */
  uuid: isUuid,
  /** An RFC 3339 date-time naming an instant that `Date` and a timestamptz column both hold. */
  'date-time': (text: string) => {
    const time = instantOf(text);
    return time !== null && time.getTime() >= EARLIEST_READABLE;
  },
};

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** Human-entered text: non-empty, bounded. */
export const Text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });

/** One of a fixed list of strings, typed as their union and shown as an enum in OpenAPI. */
export const StringEnum = <const T extends string>(values: readonly T[], options: { description?: string; default?: T } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

export const DataClassification = StringEnum(DATA_CLASSIFICATIONS);
export const Effect = StringEnum(POLICY_EFFECTS);

/**
 * Free-form JSON as the API returns it. The request-side `Freeform` declares no properties,
 * and the response serializer would write such an object as `{}`.
 */
export const JsonObjectOut = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]);

/** Integers that PostgreSQL's integer column holds. */
export const Int32 = (options: { minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647, ...options });

export const FREEFORM_KEYWORD = 'x-freeform';
export const FREEFORM_MAX_DEPTH = 32;
export const FREEFORM_MAX_BYTES = 64 * 1024;

/** Arbitrary client JSON (an object), bounded by the free-form limits. */
export const Freeform = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  // Says what the default already means, so that the document (and the clients generated from it) show an open object.
  additionalProperties: true,
  [FREEFORM_KEYWORD]: true,
});
export const NullableFreeform = Type.Union([Freeform, Type.Null()]);

export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
};

export const Pagination = Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }, { title: 'Pagination' });

export const Data = <T extends TSchema>(schema: T) => Type.Object({ data: schema });

export const PagedList = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), pagination: Pagination });

/**
 * The spec's error body, the one shape every error leaves the API in: the error handler builds
 * it, the OpenAPI document gives it as every operation's default response, and the dashboard's
 * client reads it from the types generated from that document.
 */
export const ErrorBody = Type.Object({
  // Each response of the document narrows this to the codes it can carry.
  error: Type.Unsafe<ErrorCode>({ type: 'string', description: 'The error code; each response lists those it can carry.' }),
  message: Type.String(),
  status: Type.Integer(),
  details: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'What the error concerns: `fields` for validation errors, the missing scope or role for 403, limits for 429.',
      },
    ),
  ),
  trace_id: Type.Optional(Type.String({ description: 'The trace the error concerns.' })),
  request_id: Type.String(),
});
export type ErrorBody = Static<typeof ErrorBody>;

export type Schema = TObject;
