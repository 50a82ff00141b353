"""DDL Django cannot model for narratives: FTS5 over summary and topic, and immutability.

The same trigger discipline as memories (memories/sql.py, TECH_NOTES §2.1): external content,
old values given to 'delete', re-created after ``migrate`` if a table remake dropped them.
"""

from memories import sql as memory_sql

CREATE_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS narrative_fts USING fts5(
    summary, topic,
    content='narratives_narrative', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""
DROP_FTS = "DROP TABLE IF EXISTS narrative_fts"

TRIGGERS = {
    "narrative_fts_ai": """
CREATE TRIGGER IF NOT EXISTS narrative_fts_ai AFTER INSERT ON narratives_narrative BEGIN
    INSERT INTO narrative_fts(rowid, summary, topic) VALUES (new.id, new.summary, new.topic);
END
""",
    "narrative_fts_ad": """
CREATE TRIGGER IF NOT EXISTS narrative_fts_ad AFTER DELETE ON narratives_narrative BEGIN
    INSERT INTO narrative_fts(narrative_fts, rowid, summary, topic)
    VALUES ('delete', old.id, old.summary, old.topic);
END
""",
    # Immutable: what a narrative says, whose it is, what it continues and when, never change.
    # (previous/conversation may only become NULL: the ON DELETE SET NULL of a deleted row.)
    "narrative_immutable": """
CREATE TRIGGER IF NOT EXISTS narrative_immutable BEFORE UPDATE ON narratives_narrative
WHEN new.summary IS NOT old.summary OR new.topic IS NOT old.topic
  OR new.owner_id IS NOT old.owner_id OR new.created_at IS NOT old.created_at
  OR new.starts_topic IS NOT old.starts_topic OR new.engine IS NOT old.engine
  OR (new.previous_id IS NOT old.previous_id AND new.previous_id IS NOT NULL)
  OR (new.conversation_id IS NOT old.conversation_id AND new.conversation_id IS NOT NULL)
BEGIN
    SELECT RAISE(ABORT, 'narratives are immutable');
END
""",
}
DROP_TRIGGERS = [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]

REBUILD_FTS = "INSERT INTO narrative_fts(narrative_fts) VALUES ('rebuild')"

CREATE_ALL = [CREATE_FTS, *TRIGGERS.values(), REBUILD_FTS]
DROP_ALL = [*DROP_TRIGGERS, DROP_FTS]


KEYWORD_QUERY = """
SELECT n.id
FROM narrative_fts CROSS JOIN narratives_narrative AS n ON n.id = narrative_fts.rowid
WHERE narrative_fts MATCH %s AND n.owner_id = %s
ORDER BY n.created_at DESC, n.id DESC
LIMIT %s
"""


def keyword_ids(*, match: str, owner_id: int, limit: int) -> list[int]:
    """The member's narratives whose summary or topic match, newest first."""
    return memory_sql.column(KEYWORD_QUERY, [match, owner_id, limit])
