"""DDL for the memory indexes that Django cannot model: FTS5 and sqlite-vec.

Imported by migrations and by the post_migrate guard, which re-creates any trigger that a table
remake dropped (TECH_NOTES §2.1). Never ``INSERT OR REPLACE`` into ``memories_memory``: with
recursive triggers off, the replaced row leaves the delete trigger unfired and corrupts the index.
"""

EMBEDDING_DIMENSIONS = 384

CREATE_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
    content, tags, source,
    content='memories_memory', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""
DROP_FTS = "DROP TABLE IF EXISTS memory_fts"

CREATE_VEC = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS memory_vec USING vec0(
    owner_id integer partition key,
    embedding float[{EMBEDDING_DIMENSIONS}] distance_metric=cosine
)
"""
DROP_VEC = "DROP TABLE IF EXISTS memory_vec"

TRIGGERS = {
    "memory_fts_ai": """
CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memory_fts(rowid, content, tags, source)
    VALUES (new.id, new.content, new.tags, new.source);
END
""",
    # The delete trigger also removes the memory's vector, so every path that deletes a memory
    # (the ORM, a cascade from the member, a test flush) keeps vec0 in step.
    "memory_fts_ad": """
CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memories_memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, content, tags, source)
    VALUES ('delete', old.id, old.content, old.tags, old.source);
    DELETE FROM memory_vec WHERE rowid = old.id;
END
""",
    # Only the indexed columns: reinforcing or archiving does not touch the index.
    "memory_fts_au": """
CREATE TRIGGER IF NOT EXISTS memory_fts_au AFTER UPDATE OF content, tags, source
ON memories_memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, content, tags, source)
    VALUES ('delete', old.id, old.content, old.tags, old.source);
    INSERT INTO memory_fts(rowid, content, tags, source)
    VALUES (new.id, new.content, new.tags, new.source);
END
""",
}
DROP_TRIGGERS = [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]

REBUILD_FTS = "INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')"
INTEGRITY_CHECK_FTS = "INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')"

CREATE_ALL = [CREATE_FTS, CREATE_VEC, *TRIGGERS.values(), REBUILD_FTS]
DROP_ALL = [*DROP_TRIGGERS, DROP_VEC, DROP_FTS]
