/**
 * Query page statements as named prepared statements, so PostgreSQL parses and analyses a page statement once per
 * connection instead of for every page (a measurable share of a page's time). TypeORM's query() cannot name a
 * statement, so pages go to the pool under the feature DataSource directly, here and nowhere else.
 *
 * The texts are unbounded (one per where clause shape, field list, format, output reference…), and PostgreSQL's plan
 * cache holds about 250 KB per page statement plus some 50 bytes per character of its text (measured on a
 * five-field point layer), so each connection keeps at most `max` statements and `maxChars` characters of them: the
 * least recently used is dropped with DEALLOCATE, and from node-postgres's record of the connection's parsed
 * statements, which would otherwise skip the parse when the text comes back. A text longer than a quarter of
 * `maxChars` (a layer of hundreds of fields) runs unnamed, as before.
 *
 * plan_cache_mode stays PostgreSQL's default: the first five runs of a statement are planned for their values, and a
 * generic plan is kept only when it costs no more than those did, which guards where clauses whose best plan depends
 * on the value (a selective or unselective comparison) in a way forcing generic plans would not.
 */
import { createHash } from 'node:crypto';
import { DatabaseError, Pool, PoolClient } from 'pg';

/** node-postgres's record of the statements a connection has parsed, by name (Client.connection, not typed). */
const parsed = (c: PoolClient): Record<string, string | undefined> =>
  (c as unknown as { connection: { parsedStatements: Record<string, string> } }).connection.parsedStatements;

interface Held {
  /** Names and their texts' lengths, least recently used first. */
  names: Map<string, number>;
  chars: number;
}

export class PreparedStatements {
  private readonly held = new WeakMap<PoolClient, Held>();

  constructor(
    private readonly pool: () => Pool,
    private readonly max = 20,
    private readonly maxChars = 128 * 1024,
  ) {}

  async query<T>(text: string, values: unknown[]): Promise<T[]> {
    const named = text.length <= this.maxChars / 4;
    // A name per text; a hash, because a name is at most 63 bytes and texts are thousands of characters.
    const name = named ? `page_${createHash('sha256').update(text).digest('base64url').slice(0, 40)}` : undefined;
    const client = await this.pool().connect();
    let broken: Error | undefined;
    try {
      if (!name) return (await client.query<T & object>(text, values)).rows;
      const held = this.held.get(client) ?? { names: new Map<string, number>(), chars: 0 };
      this.held.set(client, held);
      if (!held.names.has(name)) await this.makeRoom(client, held, text.length);
      try {
        return await this.run<T>(client, name, text, values);
      } finally {
        // Held when node-postgres recorded it parsed: a parse error leaves no statement, an error running it does.
        forget(held, name);
        if (parsed(client)[name] !== undefined) {
          held.names.set(name, text.length);
          held.chars += text.length;
        }
      }
    } catch (e) {
      // An error the server reported (a timeout, the where clause meeting the data) leaves the connection usable.
      if (!(e instanceof DatabaseError)) broken = e as Error;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Runs the named statement; when the tables under it changed the types of its result (a layer deleted and made
   * again under the same name, with other field types), PostgreSQL refuses the stored plan on every run from then on
   * ("cached plan must not change result type"), so the statement is dropped and prepared again, once.
   */
  private async run<T>(client: PoolClient, name: string, text: string, values: unknown[]): Promise<T[]> {
    try {
      return (await client.query<T & object>({ name, text, values })).rows;
    } catch (e) {
      if (!(e instanceof DatabaseError && e.code === '0A000' && /cached plan must not change result type/.test(e.message))) throw e;
      await deallocate(client, name);
      return (await client.query<T & object>({ name, text, values })).rows;
    }
  }

  /** Deallocates the least recently used statements until one of `chars` more fits. */
  private async makeRoom(client: PoolClient, held: Held, chars: number): Promise<void> {
    for (const old of held.names.keys()) {
      if (held.names.size < this.max && held.chars + chars <= this.maxChars) return;
      await deallocate(client, old);
      forget(held, old);
    }
  }
}

/** Drops a statement on the server and from node-postgres's record, which would otherwise skip its next parse. */
async function deallocate(client: PoolClient, name: string): Promise<void> {
  await client.query(`DEALLOCATE "${name}"`);
  delete parsed(client)[name];
}

function forget(held: Held, name: string): void {
  held.chars -= held.names.get(name) ?? 0;
  held.names.delete(name);
}
