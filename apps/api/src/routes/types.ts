import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Config } from '@agov/config';
import type { Deps } from '@agov/domain';

/** Every route module is a plugin given the domain's dependencies and the configuration. */
export type Routes = FastifyPluginAsyncTypebox<{ deps: Deps; config: Config }>;
