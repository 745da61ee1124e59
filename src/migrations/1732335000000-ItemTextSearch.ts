import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trigram indexes for the search's free text (title, snippet, description, tags), so a term is looked up rather than
 * matched against every item, which is seconds per search at 100,000 items. pg_trgm ships with
 * PostgreSQL and is a trusted extension, so the database owner may create it. Tags are indexed as one text with a
 * newline between them (an IMMUTABLE function, as an index expression must be).
 */
export class ItemTextSearch1732335000000 implements MigrationInterface {
  name = 'ItemTextSearch1732335000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(
      `CREATE FUNCTION items_tags_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, E'\\n') $$`,
    );
    for (const [name, expr] of [
      ['title', 'title'],
      ['snippet', 'snippet'],
      ['description', 'description'],
      ['tags', 'items_tags_text(tags)'],
    ])
      await q.query(`CREATE INDEX items_${name}_trgm_idx ON items USING gin ((${expr}) gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['title', 'snippet', 'description', 'tags']) await q.query(`DROP INDEX items_${name}_trgm_idx`);
    await q.query(`DROP FUNCTION items_tags_text(text[])`);
  }
}
