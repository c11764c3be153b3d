/** Numbered schema migrations; index + 1 is the version. Append only: a shipped migration never changes. */
export const MIGRATIONS: readonly string[] = [
  // 1: conversations. A message belongs to (channel, chat, thread); content is the neutral JSON form,
  // text its searchable plain text.
  `
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    channel TEXT NOT NULL,
    chat TEXT NOT NULL,
    thread TEXT NOT NULL DEFAULT '',
    turn_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content TEXT NOT NULL,
    text TEXT NOT NULL,
    provider TEXT,
    model TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX messages_by_conversation ON messages (channel, chat, thread, id);
  CREATE VIRTUAL TABLE messages_fts USING fts5(text, content='messages', content_rowid='id');
  CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
  END;
  CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
  END;
  `,
  // 2: directory-access approvals waiting for the owner's /confirm. Only a hash of the token is kept.
  `
  CREATE TABLE approvals (
    token_hash TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    reason TEXT NOT NULL,
    channel TEXT NOT NULL,
    chat TEXT NOT NULL,
    thread TEXT NOT NULL DEFAULT '',
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  `,
  // 3: compaction. A summary stands in for a conversation's messages up to covers_up_to; the messages
  // themselves stay (and stay searchable).
  `
  CREATE TABLE summaries (
    id INTEGER PRIMARY KEY,
    channel TEXT NOT NULL,
    chat TEXT NOT NULL,
    thread TEXT NOT NULL DEFAULT '',
    covers_up_to INTEGER NOT NULL,
    text TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX summaries_by_conversation ON summaries (channel, chat, thread, id);
  `,
  // 4: durable memory. A fact is live while superseded_by is NULL; storing a new value under the same
  // (scope, key) supersedes the old row (kept for history) instead of editing it. A fact retired without
  // a successor points at itself. Scopes: 'owner', 'conversation:<channel>:<chat>:<thread>', 'job:<id>'.
  `
  CREATE TABLE memories (
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    category TEXT NOT NULL CHECK (category IN ('identity', 'preference', 'interest', 'goal', 'context', 'directive')),
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1 CHECK (confidence >= 0 AND confidence <= 1),
    source TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    superseded_by INTEGER
  );
  CREATE UNIQUE INDEX memories_live_key ON memories (scope, key) WHERE superseded_by IS NULL;
  CREATE VIRTUAL TABLE memories_fts USING fts5(key, value, content='memories', content_rowid='id');
  CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
  END;
  CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
  END;
  CREATE TRIGGER memories_au AFTER UPDATE OF key, value ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, key, value) VALUES ('delete', old.id, old.key, old.value);
    INSERT INTO memories_fts(rowid, key, value) VALUES (new.id, new.key, new.value);
  END;
  -- History recall narrows to one conversation inside the index: each message also carries its conversation
  -- as one token, so "these words in this conversation" is an index intersection rather than a scan of every
  -- message that has the words. The token is the hex of channel, chat and thread (unit-separated).
  ALTER TABLE messages ADD COLUMN conversation_key TEXT
    GENERATED ALWAYS AS (hex(channel || char(31) || chat || char(31) || thread)) VIRTUAL;
  DROP TRIGGER messages_ai;
  DROP TRIGGER messages_ad;
  DROP TABLE messages_fts;
  CREATE VIRTUAL TABLE messages_fts USING fts5(text, conversation_key, content='messages', content_rowid='id');
  CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, text, conversation_key) VALUES (new.id, new.text, new.conversation_key);
  END;
  CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, text, conversation_key)
      VALUES ('delete', old.id, old.text, old.conversation_key);
  END;
  INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
  -- Which trust levels have spoken in a conversation: recall's "owner" scope reads the conversations
  -- the operator took part in, and messages alone do not say who sent them.
  CREATE TABLE conversation_trust (
    channel TEXT NOT NULL,
    chat TEXT NOT NULL,
    thread TEXT NOT NULL DEFAULT '',
    trust TEXT NOT NULL CHECK (trust IN ('operator', 'guest')),
    last_seen_at INTEGER NOT NULL,
    PRIMARY KEY (channel, chat, thread, trust)
  );
  -- Versioned files (memory/main/USER.md …): every write is a revision, so any of them can be restored.
  CREATE TABLE resources (
    name TEXT PRIMARY KEY,
    current_revision INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE resource_revisions (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    revision INTEGER NOT NULL,
    content TEXT NOT NULL,
    reason TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (name, revision)
  );
  -- Small facts about memory housekeeping itself, such as when the last review ran.
  CREATE TABLE memory_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 5: scheduled jobs and their runs. Times are epoch milliseconds. A job carries its creator's trust, and a
  // run the exact instructions, limits and route it ran with. Runs are never pruned and never replayed.
  `
  CREATE TABLE scheduled_jobs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('interval', 'once', 'cron')),
    schedule_expr TEXT NOT NULL,
    timezone TEXT NOT NULL,
    next_run_at INTEGER,
    expires_at INTEGER,
    task_prompt TEXT NOT NULL,
    skill_name TEXT,
    provider TEXT,
    model TEXT,
    timeout_seconds INTEGER,
    inactivity_timeout_seconds INTEGER,
    allowed_tools_json TEXT NOT NULL DEFAULT '[]',
    delivery_mode TEXT NOT NULL DEFAULT 'none' CHECK (delivery_mode IN ('none', 'local', 'origin', 'channel')),
    delivery_target_json TEXT,
    state TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'paused', 'disabled', 'completed')),
    last_run_at INTEGER,
    last_status TEXT CHECK (last_status IN ('ok', 'error', 'timeout', 'expired')),
    last_error TEXT,
    created_by_trust TEXT NOT NULL CHECK (created_by_trust IN ('operator', 'guest')),
    created_by_channel TEXT NOT NULL,
    created_by_chat TEXT NOT NULL,
    created_by_thread TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX scheduled_jobs_due ON scheduled_jobs (state, next_run_at);
  CREATE INDEX scheduled_jobs_expiring ON scheduled_jobs (state, expires_at);
  CREATE TABLE job_runs (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES scheduled_jobs (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('schedule', 'manual')),
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'ok', 'error', 'timeout')),
    claimed_at INTEGER NOT NULL,
    started_at INTEGER,
    completed_at INTEGER,
    prompt_snapshot TEXT,
    config_snapshot_json TEXT,
    final_response TEXT,
    error TEXT,
    delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'skipped', 'pending', 'sent', 'failed')),
    delivery_error TEXT,
    token_usage_json TEXT,
    tool_failures INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX job_runs_by_job ON job_runs (job_id, created_at);
  CREATE INDEX job_runs_active ON job_runs (status) WHERE status IN ('queued', 'running');
  `,
  // 6: coding-harness runs (codex_run, claude_code_run). Times are epoch milliseconds. origin_* is the conversation
  // the run was asked from (its result goes back there), job_id the scheduled job whose run asked, if any.
  `
  CREATE TABLE harness_runs (
    id TEXT PRIMARY KEY,
    vendor TEXT NOT NULL CHECK (vendor IN ('codex', 'claude')),
    status TEXT NOT NULL CHECK (status IN ('starting', 'submitting', 'running', 'polling', 'completed', 'failed', 'blocked', 'cancelled', 'interrupted')),
    cwd TEXT NOT NULL,
    prompt TEXT NOT NULL,
    argv_json TEXT NOT NULL,
    params_json TEXT NOT NULL,
    progress TEXT NOT NULL DEFAULT 'milestones',
    origin_channel TEXT NOT NULL,
    origin_chat TEXT NOT NULL,
    origin_thread TEXT NOT NULL DEFAULT '',
    job_id TEXT,
    pid INTEGER,
    vendor_session TEXT,
    final_message TEXT,
    error TEXT,
    failure_tag TEXT,
    exit_code INTEGER,
    events INTEGER NOT NULL DEFAULT 0,
    framing_errors INTEGER NOT NULL DEFAULT 0,
    usage_json TEXT,
    last_milestone TEXT,
    delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'stored', 'pending', 'sent', 'failed')),
    delivery_error TEXT,
    started_at INTEGER NOT NULL,
    completed_at INTEGER,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX harness_runs_recent ON harness_runs (started_at);
  CREATE INDEX harness_runs_active ON harness_runs (status) WHERE status IN ('starting', 'submitting', 'running', 'polling');
  CREATE INDEX harness_runs_pending ON harness_runs (delivery_status) WHERE delivery_status = 'pending';
  `,
  // 7: durable inbound (issue 26). What an authorized sender sent, stored before the platform hears it arrived, and
  // settled when its answer is recorded; a channel's read position (Telegram's offset); the webhook dedupe window.
  `
  CREATE TABLE inbound_messages (
    id INTEGER PRIMARY KEY,
    channel TEXT NOT NULL,
    chat TEXT NOT NULL,
    thread TEXT NOT NULL DEFAULT '',
    platform_id TEXT NOT NULL,
    sender TEXT NOT NULL,
    text TEXT NOT NULL,
    raw TEXT,
    sent_at INTEGER,
    arrived_at INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'answered', 'stopped', 'late')),
    settled_at INTEGER,
    UNIQUE (channel, chat, platform_id)
  );
  CREATE INDEX inbound_pending ON inbound_messages (channel, id) WHERE state = 'pending';
  CREATE INDEX inbound_settled ON inbound_messages (settled_at) WHERE state <> 'pending';
  CREATE TABLE channel_cursors (
    channel TEXT PRIMARY KEY,
    cursor TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE webhook_seen (
    channel TEXT NOT NULL,
    message_id TEXT NOT NULL,
    seen_at INTEGER NOT NULL,
    PRIMARY KEY (channel, message_id)
  );
  CREATE INDEX webhook_seen_age ON webhook_seen (seen_at);
  `,
  // 8: a coding run's result delivery is retried with back-off (issue 27). delivery_attempts_json lists each
  // attempt ({at, status, error}); delivery_retry_at is when the next one is due (NULL: none planned), so a
  // restarted daemon picks up a delivery its predecessor had not finished.
  `
  ALTER TABLE harness_runs ADD COLUMN delivery_attempts_json TEXT;
  ALTER TABLE harness_runs ADD COLUMN delivery_retry_at INTEGER;
  CREATE INDEX harness_runs_retrying ON harness_runs (delivery_retry_at) WHERE delivery_retry_at IS NOT NULL;
  `,
  // 9: the usage ledger (issue 30): one row per model call, tokens as the wire reported them and the cost in
  // micro-dollars with the price it used (NULL cost: no known price). And a run refused by a budget is recorded with
  // status 'budget': SQLite cannot widen a CHECK in place, so scheduled_jobs and job_runs are rebuilt by the 12-step
  // ALTER pattern (new table, copy, drop, rename, indexes again); migrate() runs with foreign keys off and checks
  // them before the commit, so dropping the old scheduled_jobs cascades nothing. The rebuilt scheduled_jobs also
  // gains max_usd, a job's own limit per run (NULL: none), appended last so the copy is `SELECT *, NULL`.
  `
  CREATE TABLE usage_ledger (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    session_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    job_id TEXT,
    run_id TEXT,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('main', 'subagent', 'job', 'compaction', 'memory_review', 'soul_draft')),
    input_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    cost_micros INTEGER,
    billing TEXT NOT NULL CHECK (billing IN ('api', 'plan')),
    price_input_per_mtok REAL,
    price_cached_input_per_mtok REAL,
    price_output_per_mtok REAL
  );
  CREATE INDEX usage_ledger_by_time ON usage_ledger (at);
  CREATE INDEX usage_ledger_by_session ON usage_ledger (session_id, at);

  CREATE TABLE scheduled_jobs_new (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('interval', 'once', 'cron')),
    schedule_expr TEXT NOT NULL,
    timezone TEXT NOT NULL,
    next_run_at INTEGER,
    expires_at INTEGER,
    task_prompt TEXT NOT NULL,
    skill_name TEXT,
    provider TEXT,
    model TEXT,
    timeout_seconds INTEGER,
    inactivity_timeout_seconds INTEGER,
    allowed_tools_json TEXT NOT NULL DEFAULT '[]',
    delivery_mode TEXT NOT NULL DEFAULT 'none' CHECK (delivery_mode IN ('none', 'local', 'origin', 'channel')),
    delivery_target_json TEXT,
    state TEXT NOT NULL CHECK (state IN ('scheduled', 'running', 'paused', 'disabled', 'completed')),
    last_run_at INTEGER,
    last_status TEXT CHECK (last_status IN ('ok', 'error', 'timeout', 'expired', 'budget')),
    last_error TEXT,
    created_by_trust TEXT NOT NULL CHECK (created_by_trust IN ('operator', 'guest')),
    created_by_channel TEXT NOT NULL,
    created_by_chat TEXT NOT NULL,
    created_by_thread TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    max_usd REAL CHECK (max_usd IS NULL OR max_usd > 0)
  );
  INSERT INTO scheduled_jobs_new SELECT *, NULL FROM scheduled_jobs;
  DROP TABLE scheduled_jobs;
  ALTER TABLE scheduled_jobs_new RENAME TO scheduled_jobs;
  CREATE INDEX scheduled_jobs_due ON scheduled_jobs (state, next_run_at);
  CREATE INDEX scheduled_jobs_expiring ON scheduled_jobs (state, expires_at);

  CREATE TABLE job_runs_new (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES scheduled_jobs (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('schedule', 'manual')),
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'ok', 'error', 'timeout', 'budget')),
    claimed_at INTEGER NOT NULL,
    started_at INTEGER,
    completed_at INTEGER,
    prompt_snapshot TEXT,
    config_snapshot_json TEXT,
    final_response TEXT,
    error TEXT,
    delivery_status TEXT NOT NULL DEFAULT 'none' CHECK (delivery_status IN ('none', 'skipped', 'pending', 'sent', 'failed')),
    delivery_error TEXT,
    token_usage_json TEXT,
    tool_failures INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  INSERT INTO job_runs_new SELECT * FROM job_runs;
  DROP TABLE job_runs;
  ALTER TABLE job_runs_new RENAME TO job_runs;
  CREATE INDEX job_runs_by_job ON job_runs (job_id, created_at);
  CREATE INDEX job_runs_active ON job_runs (status) WHERE status IN ('queued', 'running');
  `,
];
