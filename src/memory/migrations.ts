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
];
