"""The raw SQL of consolidation: observations' and dreams' vectors (sqlite-vec, one partition per
member, so a search scans only that member's rows and a filter never cuts a top-k short) and the
keyword index over observation text (FTS5, external content, kept in step by triggers).

The keyword index is household-wide but only ever used as a filter inside one member's rows and
never ranked by bm25, so no member's words shape what another member's search returns or shows.
Triggers are re-created after ``migrate`` if a table remake dropped them (TECH_NOTES §2.1,
memories/housekeeping.py: ``restore_triggers``)."""

from __future__ import annotations

import json

from django.db import connection

from memories.sql import EMBEDDING_DIMENSIONS, TOKENIZE

CREATE_OBSERVATION_VEC = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS observation_vec USING vec0(
    owner_id integer partition key,
    embedding float[{EMBEDDING_DIMENSIONS}] distance_metric=cosine
)
"""
CREATE_DREAM_VEC = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS dream_vec USING vec0(
    owner_id integer partition key,
    embedding float[{EMBEDDING_DIMENSIONS}] distance_metric=cosine
)
"""
CREATE_FTS = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS observation_fts USING fts5(
    text, content='memories_observation', content_rowid='id', tokenize='{TOKENIZE}'
)
"""
REBUILD_FTS = "INSERT INTO observation_fts(observation_fts) VALUES ('rebuild')"

TRIGGERS = {
    "observation_fts_ai": """
CREATE TRIGGER IF NOT EXISTS observation_fts_ai AFTER INSERT ON memories_observation BEGIN
    INSERT INTO observation_fts(rowid, text) VALUES (new.id, new.text);
END
""",
    "observation_fts_ad": """
CREATE TRIGGER IF NOT EXISTS observation_fts_ad AFTER DELETE ON memories_observation BEGIN
    INSERT INTO observation_fts(observation_fts, rowid, text) VALUES ('delete', old.id, old.text);
    DELETE FROM observation_vec WHERE rowid = old.id;
END
""",
    "observation_fts_au": """
CREATE TRIGGER IF NOT EXISTS observation_fts_au AFTER UPDATE OF text ON memories_observation
BEGIN
    INSERT INTO observation_fts(observation_fts, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO observation_fts(rowid, text) VALUES (new.id, new.text);
END
""",
    "dream_vec_ad": """
CREATE TRIGGER IF NOT EXISTS dream_vec_ad AFTER DELETE ON memories_dream BEGIN
    DELETE FROM dream_vec WHERE rowid = old.id;
END
""",
}
CREATE_ALL = [
    CREATE_OBSERVATION_VEC,
    CREATE_DREAM_VEC,
    CREATE_FTS,
    *TRIGGERS.values(),
    REBUILD_FTS,
]
DROP_ALL = [
    *(f"DROP TRIGGER IF EXISTS {name}" for name in TRIGGERS),
    "DROP TABLE IF EXISTS observation_fts",
    "DROP TABLE IF EXISTS dream_vec",
    "DROP TABLE IF EXISTS observation_vec",
]

_TABLES = {"observation": "observation_vec", "dream": "dream_vec"}


def replace_vectors(kind: str, rows: list[tuple[int, int, bytes]]) -> None:
    """Write (row id, owner id, float32 blob) rows; vec0 refuses INSERT OR REPLACE, so an upsert
    is DELETE + INSERT (callers wrap it in a transaction)."""
    table = _TABLES[kind]
    with connection.cursor() as cursor:
        cursor.executemany(f"DELETE FROM {table} WHERE rowid = %s", [(r[0],) for r in rows])
        cursor.executemany(
            f"INSERT INTO {table}(rowid, owner_id, embedding) VALUES (%s, %s, %s)", rows
        )


def nearest(kind: str, *, owner_id: int, vector: bytes, k: int) -> list[tuple[int, float]]:
    """The owner's ``k`` rows nearest to ``vector``: (id, cosine distance), nearest first."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid, distance FROM {_TABLES[kind]} "
            "WHERE embedding MATCH %s AND k = %s AND owner_id = %s ORDER BY distance",
            [vector, k, owner_id],
        )
        return [(row_id, distance) for row_id, distance in cursor.fetchall()]


def vectors(kind: str, *, owner_id: int, ids: list[int]) -> dict[int, bytes]:
    """The owner's vectors of the rows in ``ids`` that have one."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT v.rowid, v.embedding FROM json_each(%s) AS j "
            f"CROSS JOIN {_TABLES[kind]} AS v ON v.rowid = j.value WHERE v.owner_id = %s",
            [json.dumps(ids), owner_id],
        )
        return dict(cursor.fetchall())


def matching_observations(*, owner_id: int, match: str, limit: int) -> list[int]:
    """The owner's observations whose text matches the FTS5 expression, newest first (a filter:
    never ordered by bm25, whose statistics are the household's)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT o.id FROM observation_fts CROSS JOIN memories_observation AS o "
            "ON o.id = observation_fts.rowid "
            "WHERE observation_fts MATCH %s AND o.owner_id = %s "
            "ORDER BY o.updated_at DESC, o.id DESC LIMIT %s",
            [match, owner_id, limit],
        )
        return [row[0] for row in cursor.fetchall()]
