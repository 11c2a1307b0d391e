import { randomUUID } from "node:crypto";
import { PostgresMailboxError } from "./errors.js";
import { type PostgresPoolLike, withConnection } from "./pool.js";

/**
 * Migrations, in order; `<schema>.schema_version` records how many have been applied. Never edit a released one —
 * add the next (CREATE OR REPLACE a function, ALTER a table). Each runs inside the migrating transaction.
 *
 * Version 1, the design:
 * - `messages`: one row per message. `seq` (an identity) is the key and the order; a message id embeds it
 *   (`msg_<store>_<seq>`), so lookups by id use the primary key. The row carries its status, claim, lease, outcome
 *   and its transition log (`history`, a JSON array appended to on every change). Times are epoch milliseconds from
 *   the database's clock, so machines with skewed clocks agree on leases. Index `(to_mailbox, status, seq)` serves
 *   claims (the oldest pending message of a mailbox; the mailbox's processing ones) and inboxes.
 * - The claim gate: a claim takes a transaction-scoped advisory lock on its mailbox (64-bit hash of
 *   "<schema>/<mailbox>"), so two claims of one mailbox never interleave and the "one live claim per mailbox" rule
 *   holds across connections. claimNext() only tries it (a claimer never queues behind another one on the same
 *   mailbox: that one is taking the message, or finds the mailbox busy) and then picks the message row with
 *   FOR UPDATE SKIP LOCKED (a row another transaction is changing, e.g. cancelling, is skipped, not waited for).
 *   Advisory locks live in memory: the gate costs no table write. The check for a live claim runs after the gate
 *   is taken, in its own statement (PL/pgSQL takes a fresh snapshot per statement), so it sees the claim that the
 *   previous holder of the gate committed.
 * - Functions for every state change, so each is one round trip and one transaction: claims, renewals, settles with
 *   their replies, releases, cancels. Claims and renewals commit without waiting for the WAL flush
 *   (synchronous_commit off for that transaction): if the server crashes and forgets a claim, the message is simply
 *   claimable again — which a lost lease means anyway — and any later synchronous commit (a settle) flushes them.
 * - Wake-ups: a message arriving in a mailbox or leaving `processing` there NOTIFYs the mailbox's channel
 *   (`al_` + 24 hex digits of md5("<schema>/<mailbox>")). Not from the changing transaction itself: PostgreSQL
 *   serialises every committing transaction that NOTIFYs behind one database-wide lock held through its WAL flush,
 *   so durable settles that notify would commit one fsync at a time (no group commit). Instead the changing
 *   function records the channels in the session (`agent_lattice.notify`), and the client ends the same round trip
 *   with `notify_pending()`: a second, tiny transaction after the durable commit that sends them without waiting
 *   for a flush. Watchers therefore hear a change only once it is durable.
 * - Session settings are changed by assignment (`v_set := set_config(…)`), never `PERFORM set_config(…)`: PL/pgSQL
 *   evaluates an assigned simple expression directly, while PERFORM runs a full query through the executor — on
 *   the claim and settle paths that was a measurable share of the server's CPU per message.
 *
 * Version 2, the same table and rules with cheaper paths (the version-1 functions stay, so a process of the previous
 * release keeps working while its fleet is upgraded):
 * - claim_next() takes the oldest pending message in ONE statement after the gate when none of the mailbox's
 *   messages is processing (a NOT EXISTS that runs first, as a one-time filter: a busy mailbox locks no row); only
 *   when that takes nothing does it look at processing rows (a live lease: busy; an expired one: reclaim).
 * - The changes that notify (send, settle, release, cancel) are procedures: `CALL <change>_call(…)` commits the change
 *   inside the call (COMMIT in the procedure), then NOTIFYs from the transaction that follows it, which commits
 *   without waiting for a flush. One statement with bound parameters, prepared once per connection through the
 *   extended protocol — no simple-protocol batch of PREPARE/BEGIN/EXECUTE/COMMIT/notify_pending() with quoted
 *   literals, no session setting carrying the channels between transactions — and the server, not the client,
 *   sends the wake-up, so a client that dies mid-call no longer loses it. Rows come back as one JSON array.
 */
const MIGRATIONS: Array<(s: string, name: string) => string> = [
  (s, name) => `
    CREATE TABLE ${s}.messages (
      seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      work_item_id text NOT NULL,
      thread_id text NOT NULL,
      parent_message_id text,
      from_mailbox text NOT NULL,
      to_mailbox text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('delegation', 'message', 'reply', 'followup')),
      content text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled')),
      metadata json NOT NULL,
      created_at bigint NOT NULL,
      updated_at bigint NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      claimed_by text,
      claim_token text,
      lease_expires_at bigint,
      outcome json,
      history jsonb NOT NULL
    );
    CREATE INDEX messages_by_mailbox_status ON ${s}.messages (to_mailbox, status, seq);
    CREATE INDEX messages_by_thread ON ${s}.messages (thread_id, seq);

    -- The claim gate's key for a mailbox (see above; the claim functions inline the same expression).
    CREATE FUNCTION ${s}.gate(p_mailbox text) RETURNS bigint LANGUAGE sql IMMUTABLE AS
      $$ SELECT hashtextextended('${name}/' || p_mailbox, 0) $$;

    CREATE FUNCTION ${s}.now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS
      $$ SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint $$;

    -- The NOTIFY channel of a mailbox (postgresMailboxChannel() computes the same on the client).
    CREATE FUNCTION ${s}.channel(p_mailbox text) RETURNS text LANGUAGE sql IMMUTABLE AS
      $$ SELECT 'al_' || left(md5('${name}/' || p_mailbox), 24) $$;

    -- Sends the notifications a change recorded in the session setting agent_lattice.notify (channels, comma
    -- separated; the change sets it, so it survives that commit, or reverts with it), in its own transaction after
    -- the change committed, without waiting for a WAL flush, and clears it.
    CREATE FUNCTION ${s}.notify_pending() RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      v_channels text := current_setting('agent_lattice.notify', true);
      v_channel text;
      v_set text;
    BEGIN
      IF v_channels IS NULL OR v_channels = '' THEN RETURN; END IF;
      v_set := set_config('agent_lattice.notify', '', false);
      v_set := set_config('synchronous_commit', 'off', true);
      FOREACH v_channel IN ARRAY string_to_array(v_channels, ',') LOOP
        PERFORM pg_notify(v_channel, '');
      END LOOP;
    END $$;

    -- Stores one new message (p: from, to, kind, content, metadata, threadId, workItemId, parentMessageId,
    -- parentSeq). Replies and follow-ups inherit the parent's work item; every message its thread.
    CREATE FUNCTION ${s}.insert_message(p json, p_now bigint) RETURNS ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_kind text := coalesce(p->>'kind', 'message');
      v_parent_thread text;
      v_parent_item text;
      v_row ${s}.messages;
    BEGIN
      IF p->>'parentSeq' IS NOT NULL THEN
        SELECT thread_id, work_item_id INTO v_parent_thread, v_parent_item
          FROM ${s}.messages WHERE seq = (p->>'parentSeq')::bigint;
      END IF;
      INSERT INTO ${s}.messages (work_item_id, thread_id, parent_message_id, from_mailbox, to_mailbox, kind, content,
                                 status, metadata, created_at, updated_at, attempts, history)
      VALUES (
        coalesce(p->>'workItemId', CASE WHEN v_kind IN ('reply', 'followup') THEN v_parent_item END,
                 'wi_' || gen_random_uuid()),
        coalesce(p->>'threadId', v_parent_thread, 'th_' || gen_random_uuid()),
        p->>'parentMessageId', p->>'from', p->>'to', v_kind, p->>'content', 'pending',
        coalesce(p->'metadata', '{}'::json), p_now, p_now, 0,
        jsonb_build_array(jsonb_build_array(NULL, 'pending', p_now, NULL, NULL))
      )
      RETURNING * INTO v_row;
      RETURN v_row;
    END $$;

    CREATE FUNCTION ${s}.send(p json) RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_row ${s}.messages := ${s}.insert_message(p, ${s}.now_ms());
      v_set text;
    BEGIN
      v_set := set_config('agent_lattice.notify', 'al_' || left(md5('${name}/' || v_row.to_mailbox), 24), false);
      RETURN NEXT v_row;
    END $$;

    -- The oldest claimable message of a mailbox (pending, or processing under an expired lease), unless one of its
    -- messages is processing under a live lease (members work serially). The common path is four cheap statements:
    -- the gate, the mailbox's processing rows (none or one, by index), and one UPDATE of the oldest pending row.
    CREATE FUNCTION ${s}.claim_next(p_mailbox text, p_owner text, p_token text, p_lease_ms bigint)
    RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint;
      v_live boolean;
      v_expired bigint;
      v_pending bigint;
      v_set text;
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('${name}/' || p_mailbox, 0)) THEN RETURN; END IF;
      v_set := set_config('synchronous_commit', 'off', true);
      v_now := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      SELECT bool_or(lease_expires_at > v_now), min(seq) FILTER (WHERE lease_expires_at <= v_now)
        INTO v_live, v_expired
        FROM ${s}.messages WHERE to_mailbox = p_mailbox AND status = 'processing';
      IF v_live THEN RETURN; END IF;
      IF v_expired IS NULL THEN
        RETURN QUERY UPDATE ${s}.messages
           SET status = 'processing', claimed_by = p_owner, claim_token = p_token,
               lease_expires_at = v_now + p_lease_ms, attempts = attempts + 1, updated_at = v_now,
               history = history || jsonb_build_array(jsonb_build_array('pending', 'processing', v_now, p_token, p_owner))
         WHERE seq = (SELECT seq FROM ${s}.messages WHERE to_mailbox = p_mailbox AND status = 'pending'
                       ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *;
        RETURN;
      END IF;
      -- A crashed worker's message (expired lease) competes with the pending ones in seq order.
      SELECT seq INTO v_pending FROM ${s}.messages
        WHERE to_mailbox = p_mailbox AND status = 'pending' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
      SELECT seq INTO v_expired FROM ${s}.messages
        WHERE to_mailbox = p_mailbox AND status = 'processing' AND lease_expires_at <= v_now
        ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
      IF v_pending IS NULL AND v_expired IS NULL THEN RETURN; END IF;
      RETURN QUERY SELECT * FROM ${s}.take(least(v_pending, v_expired), p_owner, p_token, p_lease_ms, v_now);
    END $$;

    -- Marks one locked, claimable row processing under a new claim.
    CREATE FUNCTION ${s}.take(p_seq bigint, p_owner text, p_token text, p_lease_ms bigint, p_now bigint)
    RETURNS SETOF ${s}.messages LANGUAGE sql AS $$
      UPDATE ${s}.messages
         SET status = 'processing', claimed_by = p_owner, claim_token = p_token,
             lease_expires_at = p_now + p_lease_ms, attempts = attempts + 1, updated_at = p_now,
             history = history || jsonb_build_array(jsonb_build_array(status, 'processing', p_now, p_token, p_owner))
       WHERE seq = p_seq
      RETURNING *
    $$;

    -- Claims one message by seq under the same rule.
    CREATE FUNCTION ${s}.claim(p_seq bigint, p_owner text, p_token text, p_lease_ms bigint)
    RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_mailbox text;
      v_now bigint;
      v_set text;
    BEGIN
      v_set := set_config('synchronous_commit', 'off', true);
      SELECT to_mailbox INTO v_mailbox FROM ${s}.messages
        WHERE seq = p_seq AND (status = 'pending' OR (status = 'processing' AND lease_expires_at <= ${s}.now_ms()));
      IF NOT FOUND THEN RETURN; END IF;
      PERFORM pg_advisory_xact_lock(${s}.gate(v_mailbox));
      v_now := ${s}.now_ms();
      PERFORM 1 FROM ${s}.messages
        WHERE to_mailbox = v_mailbox AND status = 'processing' AND lease_expires_at > v_now AND seq <> p_seq LIMIT 1;
      IF FOUND THEN RETURN; END IF;
      PERFORM 1 FROM ${s}.messages
        WHERE seq = p_seq AND (status = 'pending' OR (status = 'processing' AND lease_expires_at <= v_now))
        FOR UPDATE SKIP LOCKED;
      IF NOT FOUND THEN RETURN; END IF;
      RETURN QUERY SELECT * FROM ${s}.take(p_seq, p_owner, p_token, p_lease_ms, v_now);
    END $$;

    -- Extends a held claim. Holds the mailbox gate (shared) so no claim of the mailbox interleaves; a claim whose
    -- lease already expired while another message of the mailbox went live is lost, not renewed.
    CREATE FUNCTION ${s}.renew(p_seq bigint, p_token text, p_lease_ms bigint)
    RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      v_mailbox text;
      v_now bigint;
      v_expiry bigint;
      v_set text;
    BEGIN
      v_set := set_config('synchronous_commit', 'off', true);
      SELECT to_mailbox INTO v_mailbox FROM ${s}.messages
        WHERE seq = p_seq AND status = 'processing' AND claim_token = p_token;
      IF NOT FOUND THEN RETURN NULL; END IF;
      PERFORM pg_advisory_xact_lock_shared(${s}.gate(v_mailbox));
      v_now := ${s}.now_ms();
      PERFORM 1 FROM ${s}.messages
        WHERE to_mailbox = v_mailbox AND status = 'processing' AND lease_expires_at > v_now AND seq <> p_seq LIMIT 1;
      IF FOUND THEN RETURN NULL; END IF;
      UPDATE ${s}.messages SET lease_expires_at = v_now + p_lease_ms, updated_at = v_now
       WHERE seq = p_seq AND status = 'processing' AND claim_token = p_token
      RETURNING lease_expires_at INTO v_expiry;
      RETURN v_expiry;
    END $$;

    -- processing → completed / failed / pending (release), with the claim's token; p_send's messages are written in
    -- the same transaction. Returns the settled row first, then the sent ones in order; nothing when the claim is
    -- not held. Its mailbox (and each recipient's) is notified after commit (notify_pending()).
    CREATE FUNCTION ${s}.settle(p_seq bigint, p_token text, p_status text, p_outcome json, p_send json)
    RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      v_row ${s}.messages;
      v_item json;
      v_channels text;
      v_set text;
    BEGIN
      UPDATE ${s}.messages
         SET status = p_status, outcome = p_outcome, claimed_by = NULL, claim_token = NULL,
             lease_expires_at = NULL, updated_at = v_now,
             history = history || jsonb_build_array(jsonb_build_array(status, p_status, v_now, claim_token, claimed_by))
       WHERE seq = p_seq AND status = 'processing' AND claim_token = p_token
      RETURNING * INTO v_row;
      IF NOT FOUND THEN RETURN; END IF;
      RETURN NEXT v_row;
      v_channels := 'al_' || left(md5('${name}/' || v_row.to_mailbox), 24);
      IF p_send IS NOT NULL THEN
        FOR v_item IN SELECT * FROM json_array_elements(p_send) LOOP
          v_row := ${s}.insert_message(v_item, v_now);
          v_channels := v_channels || ',' || 'al_' || left(md5('${name}/' || v_row.to_mailbox), 24);
          RETURN NEXT v_row;
        END LOOP;
      END IF;
      v_set := set_config('agent_lattice.notify', v_channels, false);
    END $$;

    -- pending → cancelled, or processing → cancelled with the claim's token.
    CREATE FUNCTION ${s}.cancel(p_seq bigint, p_token text, p_outcome json)
    RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint := ${s}.now_ms();
      v_row ${s}.messages;
      v_set text;
    BEGIN
      UPDATE ${s}.messages
         SET status = 'cancelled', outcome = p_outcome, claimed_by = NULL, claim_token = NULL,
             lease_expires_at = NULL, updated_at = v_now,
             history = history || jsonb_build_array(jsonb_build_array(status, 'cancelled', v_now, claim_token, claimed_by))
       WHERE seq = p_seq AND (status = 'pending' OR (status = 'processing' AND claim_token = p_token))
      RETURNING * INTO v_row;
      IF NOT FOUND THEN RETURN; END IF;
      v_set := set_config('agent_lattice.notify', 'al_' || left(md5('${name}/' || v_row.to_mailbox), 24), false);
      RETURN NEXT v_row;
    END $$;
  `,
  // Version 2: the claim and change paths with fewer statements and one protocol (see above).
  (s, name) => `
    -- The common path in ONE statement after the gate: no message of the mailbox is processing, so the oldest
    -- pending one is taken (the NOT EXISTS runs first, as a one-time filter, so a busy mailbox locks no row). Only
    -- when that takes nothing does the function look at processing rows: a live lease (busy) or an expired one.
    CREATE OR REPLACE FUNCTION ${s}.claim_next(p_mailbox text, p_owner text, p_token text, p_lease_ms bigint)
    RETURNS SETOF ${s}.messages LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint;
      v_live boolean;
      v_expired bigint;
      v_pending bigint;
      v_set text;
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended('${name}/' || p_mailbox, 0)) THEN RETURN; END IF;
      v_set := set_config('synchronous_commit', 'off', true);
      v_now := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      RETURN QUERY UPDATE ${s}.messages
         SET status = 'processing', claimed_by = p_owner, claim_token = p_token,
             lease_expires_at = v_now + p_lease_ms, attempts = attempts + 1, updated_at = v_now,
             history = history || jsonb_build_array(jsonb_build_array('pending', 'processing', v_now, p_token, p_owner))
       WHERE seq = (SELECT seq FROM ${s}.messages WHERE to_mailbox = p_mailbox AND status = 'pending'
                     ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
         AND NOT EXISTS (SELECT FROM ${s}.messages WHERE to_mailbox = p_mailbox AND status = 'processing')
      RETURNING *;
      IF FOUND THEN RETURN; END IF;
      SELECT bool_or(lease_expires_at > v_now), min(seq) FILTER (WHERE lease_expires_at <= v_now)
        INTO v_live, v_expired
        FROM ${s}.messages WHERE to_mailbox = p_mailbox AND status = 'processing';
      IF v_live OR v_expired IS NULL THEN RETURN; END IF;
      -- A crashed worker's message (expired lease) competes with the pending ones in seq order.
      SELECT seq INTO v_pending FROM ${s}.messages
        WHERE to_mailbox = p_mailbox AND status = 'pending' ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
      SELECT seq INTO v_expired FROM ${s}.messages
        WHERE to_mailbox = p_mailbox AND status = 'processing' AND lease_expires_at <= v_now
        ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
      IF v_pending IS NULL AND v_expired IS NULL THEN RETURN; END IF;
      RETURN QUERY SELECT * FROM ${s}.take(least(v_pending, v_expired), p_owner, p_token, p_lease_ms, v_now);
    END $$;

    -- The change procedures: the change commits (durably, as configured) inside the CALL, then the same CALL
    -- NOTIFYs from a second transaction that commits without waiting for a flush. One statement with bound
    -- parameters (the extended protocol, prepared once per connection), one round trip; p_rows returns the rows as
    -- JSON (NULL: nothing changed). Watchers still hear of a change only once it is durable, and a client that dies
    -- mid-call no longer loses the wake-up: the server sends it.
    CREATE PROCEDURE ${s}.send_call(p json, INOUT p_rows jsonb DEFAULT NULL) LANGUAGE plpgsql AS $$
    DECLARE
      v_row ${s}.messages := ${s}.insert_message(p, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      v_set text;
    BEGIN
      p_rows := jsonb_build_array(to_jsonb(v_row) - 'history');
      COMMIT;
      v_set := set_config('synchronous_commit', 'off', true);
      v_set := pg_notify('al_' || left(md5('${name}/' || v_row.to_mailbox), 24), '')::text;
    END $$;

    -- processing → completed / failed / pending (release) with the claim's token, and p_send's messages, in one
    -- transaction: the settled row first, then the sent ones in order.
    CREATE PROCEDURE ${s}.settle_call(p_seq bigint, p_token text, p_status text, p_outcome json, p_send json,
                                      INOUT p_rows jsonb DEFAULT NULL) LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      v_row ${s}.messages;
      v_item json;
      v_channels text[];
      v_channel text;
      v_set text;
    BEGIN
      UPDATE ${s}.messages
         SET status = p_status, outcome = p_outcome, claimed_by = NULL, claim_token = NULL,
             lease_expires_at = NULL, updated_at = v_now,
             history = history || jsonb_build_array(jsonb_build_array(status, p_status, v_now, claim_token, claimed_by))
       WHERE seq = p_seq AND status = 'processing' AND claim_token = p_token
      RETURNING * INTO v_row;
      IF NOT FOUND THEN p_rows := NULL; RETURN; END IF;
      p_rows := jsonb_build_array(to_jsonb(v_row) - 'history');
      v_channels := ARRAY['al_' || left(md5('${name}/' || v_row.to_mailbox), 24)];
      IF p_send IS NOT NULL THEN
        FOR v_item IN SELECT * FROM json_array_elements(p_send) LOOP
          v_row := ${s}.insert_message(v_item, v_now);
          p_rows := p_rows || jsonb_build_array(to_jsonb(v_row) - 'history');
          v_channels := v_channels || ('al_' || left(md5('${name}/' || v_row.to_mailbox), 24));
        END LOOP;
      END IF;
      COMMIT;
      v_set := set_config('synchronous_commit', 'off', true);
      FOREACH v_channel IN ARRAY v_channels LOOP
        v_set := pg_notify(v_channel, '')::text;
      END LOOP;
    END $$;

    -- pending → cancelled, or processing → cancelled with the claim's token.
    CREATE PROCEDURE ${s}.cancel_call(p_seq bigint, p_token text, p_outcome json, INOUT p_rows jsonb DEFAULT NULL)
    LANGUAGE plpgsql AS $$
    DECLARE
      v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      v_row ${s}.messages;
      v_set text;
    BEGIN
      UPDATE ${s}.messages
         SET status = 'cancelled', outcome = p_outcome, claimed_by = NULL, claim_token = NULL,
             lease_expires_at = NULL, updated_at = v_now,
             history = history || jsonb_build_array(jsonb_build_array(status, 'cancelled', v_now, claim_token, claimed_by))
       WHERE seq = p_seq AND (status = 'pending' OR (status = 'processing' AND claim_token = p_token))
      RETURNING * INTO v_row;
      IF NOT FOUND THEN p_rows := NULL; RETURN; END IF;
      p_rows := jsonb_build_array(to_jsonb(v_row) - 'history');
      COMMIT;
      v_set := set_config('synchronous_commit', 'off', true);
      v_set := pg_notify('al_' || left(md5('${name}/' || v_row.to_mailbox), 24), '')::text;
    END $$;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** `"name"`: schema names are validated to plain lower-case identifiers, quoted so none is a keyword. */
export function quoteIdentifier(name: string): string {
  return `"${name}"`;
}

/**
 * Creates or upgrades the mailbox schema. One transaction under an advisory lock keyed on the schema name, so
 * processes starting at once migrate it exactly once (the others wait, then find it current). With
 * `apply: false` it only checks the version. Returns the store id that message ids embed.
 */
export async function migrate(
  pool: PostgresPoolLike,
  schema: string,
  apply: boolean,
  /** The version to migrate to: the newest, except in tests that build an older schema to upgrade. */
  target = SCHEMA_VERSION,
): Promise<string> {
  const s = quoteIdentifier(schema);
  // A connection that failed mid-transaction (or at all) is not handed back for reuse (see withConnection).
  return withConnection(pool, async client => {
    if (!apply) {
      const found = await readVersion(client, schema);
      if (!found || found.version < SCHEMA_VERSION) {
        throw new PostgresMailboxError(
          "postgres_mailbox_schema_outdated",
          `The PostgreSQL mailbox schema "${schema}" is ${found ? `at version ${found.version}` : "missing"}, and this @agent-lattice/mailbox-postgres needs version ${SCHEMA_VERSION}. Run migratePostgresMailbox({ pool, schema: "${schema}" }) with a role that may create tables (or create the mailbox with migrate: true).`,
        );
      }
      if (found.version > SCHEMA_VERSION) throw tooNew(schema, found.version);
      return found.storeId;
    }
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
        `agent-lattice/mailbox-postgres:${schema}`,
      ]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL, store_id text NOT NULL)`,
      );
      const found = await readVersion(client, schema);
      const current = found?.version ?? 0;
      if (current > SCHEMA_VERSION) throw tooNew(schema, current);
      for (let version = current; version < target; version++)
        await client.query(MIGRATIONS[version]!(s, schema));
      const storeId = found?.storeId ?? randomUUID().replace(/-/g, "").slice(0, 12);
      if (!found) {
        await client.query(`INSERT INTO ${s}.schema_version (version, store_id) VALUES ($1, $2)`, [
          target,
          storeId,
        ]);
      } else if (current < target) {
        await client.query(`UPDATE ${s}.schema_version SET version = $1`, [target]);
      }
      await client.query("COMMIT");
      return storeId;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  });
}

async function readVersion(
  client: { query: PostgresPoolLike["query"] },
  schema: string,
): Promise<{ version: number; storeId: string } | undefined> {
  const table = await client.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [
    `${quoteIdentifier(schema)}.schema_version`,
  ]);
  if (!table.rows[0]?.exists) return undefined;
  const row = (
    await client.query<{ version: number; store_id: string }>(
      `SELECT version, store_id FROM ${quoteIdentifier(schema)}.schema_version LIMIT 1`,
    )
  ).rows[0];
  return row ? { version: Number(row.version), storeId: row.store_id } : undefined;
}

function tooNew(schema: string, found: number): PostgresMailboxError {
  return new PostgresMailboxError(
    "postgres_mailbox_schema_too_new",
    `The PostgreSQL mailbox schema "${schema}" is at version ${found}, but this @agent-lattice/mailbox-postgres knows versions up to ${SCHEMA_VERSION}. Upgrade the package (every process sharing the schema must run the same or a newer version).`,
  );
}
