import { LRUCache } from 'lru-cache';

/**
 * An in-process cache for rows that every request reads, kept correct across writes: a
 * reader that loaded from the database while an invalidation happened must not store what
 * it read, or the stale value would outlive the change. Readers take a ticket before loading
 * and store with it; any invalidation in between voids the ticket.
 */
export class InvalidatedCache<V extends {}> {
  private readonly entries: LRUCache<string, V>;
  private generation = 0;

  constructor(options: { max: number; ttlMs: number }) {
    this.entries = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs });
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  ticket(): number {
    return this.generation;
  }

  set(key: string, value: V, ticket: number): void {
    if (ticket === this.generation) this.entries.set(key, value);
  }

  delete(key: string): void {
    this.generation += 1;
    this.entries.delete(key);
  }

  /** What an invalidation naming `id` makes stale; by default, the entry of that key. */
  drop(id: string): void {
    this.delete(id);
  }

  /** Drops every entry, for when invalidations may have been missed. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  deleteWhere(predicate: (value: V) => boolean): void {
    this.generation += 1;
    for (const [key, value] of this.entries.entries()) if (predicate(value)) this.entries.delete(key);
  }
}
