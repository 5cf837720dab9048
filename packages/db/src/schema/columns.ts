import { timestamp, uuid } from 'drizzle-orm/pg-core';

/** Millisecond precision, so a stored time reads back exactly as the API wrote it. */
export const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

export const id = () => uuid('id').primaryKey().defaultRandom();

export const createdAt = () => at('created_at').notNull().defaultNow();
