"""DDL for the memory indexes that Django cannot model: FTS5 and sqlite-vec.

**One keyword index per member.** FTS5's bm25 weighs a word by how many rows of the *table*
hold it and a row's length by the *table's* average. With one table for the household, a member
who stored a rare word could watch its bm25 fall as another member stored memories with it, and
count them (the trust issue measured 1.70 → 0.74). So each member gets their own FTS5 table,
``memory_fts_<owner id>``, holding only their rows: its statistics are theirs alone, and a query
scans only their index. Triggers on ``memories_memory``, one set
per member (``WHEN new.owner_id = N``), keep it in step. The tables are created when a member is
created (memories/apps.py), re-created by the ``post_migrate`` guard if missing, and dropped
when the member is removed.

Imported by migrations and by the guard, which re-creates any trigger that a table remake
dropped (TECH_NOTES §2.1). Never ``INSERT OR REPLACE`` into ``memories_memory``: with recursive
triggers off, the replaced row leaves the delete trigger unfired and corrupts the index.
"""

from django.db import connections

EMBEDDING_DIMENSIONS = 384
TOKENIZE = "porter unicode61 remove_diacritics 2"

CREATE_VEC = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS memory_vec USING vec0(
    owner_id integer partition key,
    embedding float[{EMBEDDING_DIMENSIONS}] distance_metric=cosine
)
"""
DROP_VEC = "DROP TABLE IF EXISTS memory_vec"
# The contextual keys (memories/context.py): a memory embedded with what was said just before it
# in its conversation or session. Only memories that have such neighbours have a row.
CREATE_CONTEXT_VEC = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS memory_context_vec USING vec0(
    owner_id integer partition key,
    embedding float[{EMBEDDING_DIMENSIONS}] distance_metric=cosine
)
"""
DROP_CONTEXT_VEC = "DROP TABLE IF EXISTS memory_context_vec"

# Household-wide triggers. Every path that deletes a memory (the ORM, a cascade from the member,
# a test flush) takes its vector with it.
# VEC_TRIGGERS is frozen as migrations 0005 and 0006 create it; 0008 adds CONTEXT_TRIGGERS.
VEC_TRIGGERS = {
    "memory_vec_ad": """
CREATE TRIGGER IF NOT EXISTS memory_vec_ad AFTER DELETE ON memories_memory BEGIN
    DELETE FROM memory_vec WHERE rowid = old.id;
END
""",
}
CONTEXT_TRIGGERS = {
    "memory_context_vec_ad": """
CREATE TRIGGER IF NOT EXISTS memory_context_vec_ad AFTER DELETE ON memories_memory BEGIN
    DELETE FROM memory_context_vec WHERE rowid = old.id;
END
""",
}
TRIGGERS = VEC_TRIGGERS | CONTEXT_TRIGGERS
DROP_TRIGGERS = [f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS]
CREATE_ALL = [CREATE_VEC, CREATE_CONTEXT_VEC, *TRIGGERS.values()]
DROP_ALL = [*DROP_TRIGGERS, DROP_CONTEXT_VEC, DROP_VEC]
# Migration 0008 adds the contextual keys' table and trigger (and its reverse drops them).
CONTEXT_CREATE = [CREATE_CONTEXT_VEC, *CONTEXT_TRIGGERS.values()]
CONTEXT_DROP = ["DROP TRIGGER IF EXISTS memory_context_vec_ad", DROP_CONTEXT_VEC]


# --- one keyword index per member ---------------------------------------------------------------
# Table and trigger names carry the owner id; it is an int (``int()`` below), never user text.

MEMBER_PREFIX = "memory_fts_"


def member_fts(owner_id: int) -> str:
    return f"{MEMBER_PREFIX}{int(owner_id)}"


def member_triggers(owner_id: int) -> dict[str, str]:
    """The three triggers that keep one member's index in step with their rows."""
    n, fts = int(owner_id), member_fts(owner_id)
    return {
        f"{fts}_ai": f"""
CREATE TRIGGER IF NOT EXISTS {fts}_ai AFTER INSERT ON memories_memory
WHEN new.owner_id = {n} BEGIN
    INSERT INTO {fts}(rowid, content, tags, source)
    VALUES (new.id, new.content, new.tags, new.source);
END
""",
        f"{fts}_ad": f"""
CREATE TRIGGER IF NOT EXISTS {fts}_ad AFTER DELETE ON memories_memory
WHEN old.owner_id = {n} BEGIN
    DELETE FROM {fts} WHERE rowid = old.id;
END
""",
        # Only the indexed columns (and the owner, should a row ever change hands): reinforcing
        # or archiving does not touch the index.
        f"{fts}_au": f"""
CREATE TRIGGER IF NOT EXISTS {fts}_au AFTER UPDATE OF content, tags, source, owner_id
ON memories_memory WHEN old.owner_id = {n} OR new.owner_id = {n} BEGIN
    DELETE FROM {fts} WHERE rowid = old.id;
    INSERT INTO {fts}(rowid, content, tags, source)
    SELECT new.id, new.content, new.tags, new.source WHERE new.owner_id = {n};
END
""",
    }


def create_member_index(owner_id: int) -> list[str]:
    """The member's FTS5 table and its triggers (idempotent).

    Contentless (``content=''``) with ``contentless_delete=1``: the words live in
    ``memories_memory``, the index holds only what ranking needs, and a row is deleted by id.
    (An external-content table over a view of the member's rows was tried first: SQLite then
    refuses the ALTER TABLE RENAME of Django's table remakes, "error in view … no such table".)
    """
    fts = member_fts(owner_id)
    return [
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {fts} USING fts5(content, tags, source, "
        f"content='', contentless_delete=1, tokenize='{TOKENIZE}')",
        *member_triggers(owner_id).values(),
    ]


def drop_member_index(owner_id: int) -> list[str]:
    return [
        *(f"DROP TRIGGER IF EXISTS {name}" for name in member_triggers(owner_id)),
        f"DROP TABLE IF EXISTS {member_fts(owner_id)}",
    ]


def rebuild_member_index(owner_id: int) -> list[str]:
    """Empty the member's index and fill it again from their rows."""
    fts = member_fts(owner_id)
    return [
        f"INSERT INTO {fts}({fts}) VALUES ('delete-all')",
        f"INSERT INTO {fts}(rowid, content, tags, source) "
        f"SELECT id, content, tags, source FROM memories_memory WHERE owner_id = {int(owner_id)}",
    ]


def integrity_check_member_index(owner_id: int) -> str:
    fts = member_fts(owner_id)
    return f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')"


def member_index_rowids(owner_id: int) -> str:
    return f"SELECT rowid FROM {member_fts(owner_id)} ORDER BY rowid"


MEMBER_IDS = "SELECT id FROM auth_user ORDER BY id"
MEMBER_TABLES = (
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'memory_fts_[0-9]*' "
    "AND sql LIKE 'CREATE VIRTUAL TABLE%'"
)
TRIGGER_NAMES = "SELECT name FROM sqlite_master WHERE type = 'trigger'"
TABLE_EXISTS = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = %s"


# --- frozen: the household-wide index of migrations 0002–0004 -----------------------------------
# Migration 0005 replaced it with the per-member indexes above; these strings stay as they were
# so that those migrations (and 0005's reverse) keep doing what they did.

LEGACY_CREATE_FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
    content, tags, source,
    content='memories_memory', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
)
"""
LEGACY_DROP_FTS = "DROP TABLE IF EXISTS memory_fts"
LEGACY_TRIGGERS = {
    "memory_fts_ai": """
CREATE TRIGGER IF NOT EXISTS memory_fts_ai AFTER INSERT ON memories_memory BEGIN
    INSERT INTO memory_fts(rowid, content, tags, source)
    VALUES (new.id, new.content, new.tags, new.source);
END
""",
    "memory_fts_ad": """
CREATE TRIGGER IF NOT EXISTS memory_fts_ad AFTER DELETE ON memories_memory BEGIN
    INSERT INTO memory_fts(memory_fts, rowid, content, tags, source)
    VALUES ('delete', old.id, old.content, old.tags, old.source);
    DELETE FROM memory_vec WHERE rowid = old.id;
END
""",
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
LEGACY_REBUILD_FTS = "INSERT INTO memory_fts(memory_fts) VALUES ('rebuild')"
LEGACY_CREATE_ALL = [
    LEGACY_CREATE_FTS,
    CREATE_VEC,
    *LEGACY_TRIGGERS.values(),
    LEGACY_REBUILD_FTS,
]
LEGACY_DROP_ALL = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in LEGACY_TRIGGERS),
    DROP_VEC,
    LEGACY_DROP_FTS,
]


# --- running statements: the only place outside search.py that touches a cursor -------------


def run(statements, params=(), using: str = "default") -> None:
    """Execute each statement in order (DDL, rebuilds), with ``params`` for each."""
    with connections[using].cursor() as cursor:
        for statement in [statements] if isinstance(statements, str) else statements:
            cursor.execute(statement, params)


def column(statement: str, params=(), using: str = "default") -> list:
    """The first column of every row ``statement`` returns."""
    with connections[using].cursor() as cursor:
        cursor.execute(statement, params)
        return [row[0] for row in cursor.fetchall()]
