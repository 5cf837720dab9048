import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One request and the response it got, as a test saw it. */
export interface Exchange {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * Requests that are not API operations, so the document does not describe them: each with
 * why. Everything else the service answers is checked against the document.
 */
export const NOT_OPERATIONS: readonly { path: RegExp; why: string }[] = [
  { path: /^\/openapi\.json$/, why: 'the document itself' },
  { path: /^\/docs(\/|$)/, why: 'the reference UI (swagger-ui) and its assets' },
  { path: /^\/(?!api(\/|$)|health(\/|$))/, why: "the dashboard's pages and assets, served for every path outside the API" },
];

type Json = Record<string, unknown>;

interface Operation {
  /** `GET /api/v1/agents/{id}`: how a violation names it. */
  name: string;
  /** JSON pointer of the operation in the document. */
  pointer: string;
  responses: Json;
}

interface Path {
  template: string;
  pattern: RegExp;
  /** Fewer parameters first: a literal segment wins over a parameter, as in the router. */
  parameters: number;
  operations: Map<string, Operation>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ERROR_FIELDS_SHOWN = 5;

/** How ajv's errors read in a violation: where in the body (when `at` says so), and what is wrong there. */
function describeErrors(errors: ErrorObject[] | null | undefined, at: 'place' | 'message only'): string {
  return (errors ?? [])
    .slice(0, ERROR_FIELDS_SHOWN)
    .map((error) => {
      const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
      return `${at === 'place' ? `${error.instancePath || '/'} ` : ''}${error.message}${extra}`;
    })
    .join('; ');
}

function escapePointer(part: string): string {
  return encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1'));
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function headerValue(headers: Exchange['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

const DOCUMENT_ID = 'https://contract.test/openapi.json';

/**
 * Checks exchanges against an OpenAPI 3.0 or 3.1 document: the status is declared for the
 * operation (its own code or its range, `4XX`; a 5XX may also fall to `default`), the
 * response's required headers are present and every declared header present is valid, and
 * the body is of a declared content type and, when JSON, valid against its schema. Schemas
 * are compiled once each, the first time a response needs them.
 */
export class ContractChecker {
  private readonly paths: Path[];
  private readonly bodies: Ajv2020;
  /** Header values arrive as text: this instance coerces them to the schema's type. */
  private readonly headers: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.paths = Object.entries((document.paths ?? {}) as Record<string, Json>)
      .map(([template, item], index) => {
        const operations = new Map<string, Operation>();
        for (const method of METHODS) {
          const operation = item[method] as Json | undefined;
          if (!operation) continue;
          operations.set(method.toUpperCase(), {
            name: `${method.toUpperCase()} ${template}`,
            pointer: `#/paths/${escapePointer(template)}/${method}`,
            responses: (operation.responses ?? {}) as Json,
          });
        }
        const source = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
        // The router gives a parameter an empty segment too (`/traces//outcome`), and the route then answers.
        return { template, pattern: new RegExp(`^${source.join('[^/]*')}$`), parameters: source.length - 1, operations, index };
      })
      .sort((a, b) => a.parameters - b.parameters || a.index - b.index);
    this.bodies = this.ajv({});
    this.headers = this.ajv({ coerceTypes: true });
  }

  private ajv(options: { coerceTypes?: boolean }): Ajv2020 {
    // Not strict: the document's schemas carry OpenAPI's own keywords (`example`, `nullable`, `x-…`).
    const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true, ...options });
    addFormats.default(ajv);
    for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
    ajv.addSchema(this.document, DOCUMENT_ID);
    return ajv;
  }

  /** The validator of the schema at `pointer` in the document, `$ref`s resolved against it. */
  private validator(ajv: Ajv2020, pointer: string): ValidateFunction {
    const key = `${ajv === this.headers ? 'header' : 'body'}${pointer}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate =
        ajv === this.headers
          ? ajv.compile({ type: 'object', properties: { value: { $ref: `${DOCUMENT_ID}${pointer}` } } })
          : ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer} in the document`);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  /** An object of the document at `pointer`, following the `$ref`s that stand for it. */
  private resolve(pointer: string): { pointer: string; value: Json } {
    let current = pointer;
    for (let hops = 0; hops < 10; hops += 1) {
      let value: unknown = this.document;
      for (const part of current.slice(2).split('/').filter(Boolean)) {
        value = (value as Json | undefined)?.[decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')];
      }
      const ref = (value as Json | undefined)?.$ref;
      if (typeof ref !== 'string') return { pointer: current, value: (value ?? {}) as Json };
      current = ref;
    }
    throw new Error(`$ref cycle from ${pointer}`);
  }

  private operationFor(method: string, path: string): Operation | undefined {
    const route = this.paths.filter((candidate) => candidate.pattern.test(path));
    // Fastify answers HEAD for every GET route.
    const candidates = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    for (const candidate of candidates) {
      const operation = route.find((item) => item.operations.has(candidate))?.operations.get(candidate);
      if (operation) return operation;
    }
    return undefined;
  }

  /** What is wrong with the exchange, one line each; nothing when it is as the document says. */
  check(exchange: Exchange): string[] {
    const method = exchange.method.toUpperCase();
    const rawPath = exchange.url.split('?')[0]!;
    const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
    if (NOT_OPERATIONS.some((skipped) => skipped.path.test(path))) return [];
    const prefix = `${method} ${exchange.url} → ${exchange.status}`;
    // A trailing slash is ignored, unless it ends an empty parameter (`/users/` as `/users/{id}`).
    const operation = this.operationFor(method, path) ?? this.operationFor(method, rawPath);
    if (!operation) return this.checkUnrouted(exchange, prefix);
    return this.checkResponse(operation, exchange, method).map((problem) => `${prefix}: ${problem}`);
  }

  /**
   * What is wrong with a webhook the service delivered, one line each: its event is one of the
   * document's `webhooks`, the headers declared required are there, and its body is valid.
   */
  checkDelivery(delivery: { headers: Exchange['headers']; body: string }): string[] {
    const event = parsed(delivery.body)?.event;
    const webhooks = (this.document.webhooks ?? {}) as Json;
    if (typeof event !== 'string' || !(event in webhooks)) return [`webhook ${String(event)}: no such webhook in the document`];
    const pointer = `#/webhooks/${escapePointer(event)}/post`;
    const post = this.resolve(pointer).value;
    const problems: string[] = [];
    for (const parameter of (post.parameters ?? []) as Json[]) {
      if (parameter.in === 'header' && parameter.required === true && headerValue(delivery.headers, String(parameter.name)) === undefined) {
        problems.push(`header ${String(parameter.name)} is missing`);
      }
    }
    const validate = this.validator(this.bodies, `${pointer}/requestBody/content/application~1json/schema`);
    if (!validate(JSON.parse(delivery.body))) problems.push(`body: ${describeErrors(validate.errors, 'place')}`);
    return problems.map((problem) => `webhook ${event}: ${problem}`);
  }

  /** A path or method the document does not have must get the not-found error, as an unknown route does. */
  private checkUnrouted(exchange: Exchange, prefix: string): string[] {
    const notFound =
      exchange.status === 404 &&
      mediaType(headerValue(exchange.headers, 'content-type')) === 'application/json' &&
      parsed(exchange.body)?.error === 'not_found';
    return notFound ? [] : [`${prefix}: no operation in the document for ${exchange.method.toUpperCase()} ${exchange.url.split('?')[0]}`];
  }

  private checkResponse(operation: Operation, exchange: Exchange, method: string): string[] {
    const status = String(exchange.status);
    // `default` stands for the faults no route can list (a 500); were it to cover every status,
    // an answer the document never mentions would pass and generated clients would not know it.
    const keys = exchange.status >= 500 ? [status, '5XX', 'default'] : [status, `${status[0]}XX`];
    const declared = keys.find((key) => key in operation.responses);
    if (!declared) {
      return [`status ${status} is not declared for ${operation.name} (declared: ${Object.keys(operation.responses).join(', ')})`];
    }
    const response = this.resolve(`${operation.pointer}/responses/${declared}`);
    return [...this.checkHeaders(response, exchange.headers), ...this.checkBody(response, exchange, method, status)];
  }

  private checkHeaders(response: { pointer: string; value: Json }, headers: Exchange['headers']): string[] {
    const problems: string[] = [];
    for (const name of Object.keys((response.value.headers ?? {}) as Json)) {
      const header = this.resolve(`${response.pointer}/headers/${escapePointer(name)}`);
      const value = headerValue(headers, name);
      if (value === undefined) {
        if (header.value.required === true) problems.push(`header ${name} is missing; the document declares it required`);
        continue;
      }
      if (!header.value.schema) continue;
      const validate = this.validator(this.headers, `${header.pointer}/schema`);
      if (!validate({ value })) problems.push(`header ${name}: ${describeErrors(validate.errors, 'message only')}`);
    }
    return problems;
  }

  private checkBody(response: { pointer: string; value: Json }, exchange: Exchange, method: string, status: string): string[] {
    const content = (response.value.content ?? {}) as Json;
    const declaredTypes = Object.keys(content);
    const given = mediaType(headerValue(exchange.headers, 'content-type'));
    if (exchange.body === '' && given === undefined) {
      // A HEAD answer has the GET's headers and no body; 204 and 304 never have one.
      const bodyless = method === 'HEAD' || status === '204' || status === '304';
      return declaredTypes.length === 0 || bodyless ? [] : [`no body, where the document declares ${declaredTypes.join(', ')}`];
    }
    const match = declaredTypes.find((type) => {
      const wanted = type.toLowerCase();
      return wanted === given || wanted === '*/*' || (wanted.endsWith('/*') && given?.startsWith(wanted.slice(0, -1)));
    });
    if (!match) {
      return [
        `content type ${given ?? '(none)'} is not declared for status ${status} (declared: ${declaredTypes.join(', ') || 'no body'})`,
      ];
    }
    if (method === 'HEAD' || !isJson(match) || !(content[match] as Json).schema) return [];
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`body is not JSON, as its content type ${given} says`];
    }
    const validate = this.validator(this.bodies, `${response.pointer}/content/${escapePointer(match)}/schema`);
    return validate(body) ? [] : [`body: ${describeErrors(validate.errors, 'place')}`];
  }
}

function parsed(body: string): Json | undefined {
  try {
    return JSON.parse(body) as Json;
  } catch {
    return undefined;
  }
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

const checkers = new Map<string, ContractChecker>();

/** The checker of a document, made once per distinct document (apps with the same routes share one). */
export function checkerFor(document: object): ContractChecker {
  const text = JSON.stringify(document);
  let checker = checkers.get(text);
  if (!checker) {
    checker = new ContractChecker(JSON.parse(text) as Json);
    checkers.set(text, checker);
  }
  return checker;
}
