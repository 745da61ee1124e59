import { MigrationInterface, QueryRunner } from 'typeorm';

/** Portal core: organisations, users, tokens, items, groups and sharing. */
export class Init1732240000000 implements MigrationInterface {
  name = 'Init1732240000000';

  async up(q: QueryRunner): Promise<void> {
    // PostGIS backs the hosted feature layers; created here so every deployment has it from the start.
    await q.query(`CREATE EXTENSION IF NOT EXISTS postgis`);
    await q.query(`
      CREATE TABLE orgs (
        id text PRIMARY KEY,
        name text NOT NULL,
        url_key text NOT NULL UNIQUE,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE roles (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        privileges text[] NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL DEFAULT now(),
        UNIQUE (org_id, name)
      )`);
    await q.query(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        username text NOT NULL,
        org_id text NOT NULL REFERENCES orgs(id),
        role text NOT NULL CHECK (role IN ('org_admin','org_publisher','org_user')),
        role_id text REFERENCES roles(id) ON DELETE SET NULL,
        full_name text NOT NULL DEFAULT '',
        first_name text NOT NULL DEFAULT '',
        last_name text NOT NULL DEFAULT '',
        email text NOT NULL DEFAULT '',
        description text NOT NULL DEFAULT '',
        password_hash text NOT NULL,
        fav_group_id text,
        disabled boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now()
      )`);
    // ArcGIS user names are unique regardless of case; lookups use the exact name.
    await q.query(`CREATE UNIQUE INDEX users_username_lower_uq ON users (lower(username))`);
    await q.query(`CREATE INDEX users_org_idx ON users (org_id)`);
    await q.query(`
      CREATE TABLE tokens (
        id bigserial PRIMARY KEY,
        token_hash bytea NOT NULL UNIQUE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        client text NOT NULL,
        referer text,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tokens_user_idx ON tokens (user_id)`);
    await q.query(`
      CREATE TABLE groups (
        id text PRIMARY KEY,
        org_id text NOT NULL REFERENCES orgs(id),
        owner_id text NOT NULL REFERENCES users(id),
        title text NOT NULL,
        access text NOT NULL CHECK (access IN ('private','org','public')),
        tags text[] NOT NULL DEFAULT '{}',
        description text NOT NULL DEFAULT '',
        snippet text NOT NULL DEFAULT '',
        phone text NOT NULL DEFAULT '',
        sort_field text NOT NULL DEFAULT 'title',
        sort_order text NOT NULL DEFAULT 'asc',
        is_invitation_only boolean NOT NULL DEFAULT false,
        is_view_only boolean NOT NULL DEFAULT false,
        is_fav boolean NOT NULL DEFAULT false,
        auto_join boolean NOT NULL DEFAULT false,
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX groups_org_idx ON groups (org_id)`);
    await q.query(`CREATE INDEX groups_owner_idx ON groups (owner_id)`);
    await q.query(`
      CREATE TABLE group_members (
        group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        member_type text NOT NULL CHECK (member_type IN ('owner','admin','member')),
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (group_id, user_id)
      )`);
    await q.query(`CREATE INDEX group_members_user_idx ON group_members (user_id)`);
    await q.query(`
      CREATE TABLE items (
        id text PRIMARY KEY,
        owner_id text NOT NULL REFERENCES users(id),
        org_id text NOT NULL REFERENCES orgs(id),
        title text NOT NULL,
        type text NOT NULL,
        type_keywords text[] NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        description text NOT NULL DEFAULT '',
        snippet text NOT NULL DEFAULT '',
        url text,
        access text NOT NULL DEFAULT 'private' CHECK (access IN ('private','org','public')),
        name text,
        file_path text,
        content_type text,
        size bigint NOT NULL DEFAULT 0,
        data text,
        extent jsonb NOT NULL DEFAULT '[]',
        spatial_reference text,
        properties jsonb,
        status text NOT NULL DEFAULT 'completed' CHECK (status IN ('processing','completed','failed')),
        status_message text NOT NULL DEFAULT 'completed',
        created timestamptz NOT NULL DEFAULT now(),
        modified timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX items_owner_idx ON items (owner_id)`);
    await q.query(`CREATE INDEX items_org_access_idx ON items (org_id, access)`);
    await q.query(`
      CREATE TABLE item_shares (
        item_id text NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        group_id text NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (item_id, group_id)
      )`);
    await q.query(`CREATE INDEX item_shares_group_idx ON item_shares (group_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['item_shares', 'items', 'group_members', 'groups', 'tokens', 'users', 'roles', 'orgs']) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
