import { type Static, Type } from '@sinclair/typebox';

/** What the service accepts as `data_classification`. */
export const DATA_CLASSIFICATIONS = ['public', 'internal', 'confidential', 'restricted'] as const;

/** How one tool's call becomes an evaluation; every field may also be a server's default. */
const ToolMapping = Type.Object(
  {
    operation: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    target_integration: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** A template naming top-level arguments in braces: `{path}`, `repo:{owner}/{repo}`. */
    resource_scope: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    data_classification: Type.Optional(Type.Union(DATA_CLASSIFICATIONS.map((value) => Type.Literal(value)))),
    /** Forward the call unevaluated while the governance API cannot be reached (default false). */
    fail_open: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Server = Type.Object(
  {
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    url: Type.Optional(Type.String({ pattern: '^https?://' })),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    target_integration: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Longest a tool call may run downstream; progress from the tool restarts the clock. */
    call_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    defaults: Type.Optional(ToolMapping),
    tools: Type.Optional(Type.Record(Type.String({ minLength: 1 }), ToolMapping)),
  },
  { additionalProperties: false },
);

/** A server's name prefixes its tools (`fs__read_file`), so it cannot hold the separator. */
export const SERVER_NAME = '^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$';

export const ConfigFile = Type.Object(
  {
    governance: Type.Object(
      {
        url: Type.String({ pattern: '^https?://' }),
        api_key: Type.String({ minLength: 1 }),
        agent_id: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
      },
      { additionalProperties: false },
    ),
    approval_wait_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
    servers: Type.Record(Type.String({ pattern: SERVER_NAME }), Server, { minProperties: 1, additionalProperties: false }),
  },
  { additionalProperties: false },
);

export type ConfigFile = Static<typeof ConfigFile>;
export type ToolMapping = Static<typeof ToolMapping>;
export type ServerFile = Static<typeof Server>;
