import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens derived with `generateToken?token=..&serverUrl=..` die with the token they came from: deleting a parent
 * deletes its children (ON DELETE CASCADE), and revoking one revokes them, whoever revokes and however (a trigger,
 * so no code path can forget). Derivation depth is capped in code, which bounds how far either cascade nests.
 * The expiry index serves the periodic purge of expired tokens.
 */
export class TokenHardening1732272000000 implements MigrationInterface {
  name = 'TokenHardening1732272000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tokens ADD COLUMN parent_token_id bigint REFERENCES tokens(id) ON DELETE CASCADE`);
    await q.query(`ALTER TABLE tokens ADD COLUMN depth smallint NOT NULL DEFAULT 0`);
    await q.query(`CREATE INDEX tokens_parent_idx ON tokens (parent_token_id) WHERE parent_token_id IS NOT NULL`);
    await q.query(`CREATE INDEX tokens_expires_idx ON tokens (expires_at)`);
    await q.query(`
      CREATE FUNCTION tokens_revoke_children() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE tokens SET revoked_at = NEW.revoked_at WHERE parent_token_id = NEW.id AND revoked_at IS NULL;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER tokens_revoke_children AFTER UPDATE OF revoked_at ON tokens
        FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
        EXECUTE FUNCTION tokens_revoke_children()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER IF EXISTS tokens_revoke_children ON tokens`);
    await q.query(`DROP FUNCTION IF EXISTS tokens_revoke_children()`);
    await q.query(`DROP INDEX IF EXISTS tokens_expires_idx`);
    await q.query(`ALTER TABLE tokens DROP COLUMN IF EXISTS depth`);
    await q.query(`ALTER TABLE tokens DROP COLUMN IF EXISTS parent_token_id`);
  }
}
