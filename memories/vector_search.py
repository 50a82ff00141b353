"""The raw SQL of the memories' vectors in sqlite-vec: each memory's own key (``memory_vec``) and
its contextual key (``memory_context_vec``, memories/context.py), one partition per member (the
owner as partition key, so a KNN scans only that member's chunk and a filter can never cut a
top-k short, TECH_NOTES §1.1). The in-process copy that recall searches is memories/vectors.py.
"""

from __future__ import annotations

import json

from django.db import connection


def replace_vectors(rows: list[tuple[int, int, bytes]]) -> None:
    """Write (memory id, owner id, float32 blob) rows. vec0 0.1.9 refuses INSERT OR REPLACE,
    so an upsert is DELETE + INSERT; callers wrap it in a transaction."""
    with connection.cursor() as cursor:
        cursor.executemany("DELETE FROM memory_vec WHERE rowid = %s", [(r[0],) for r in rows])
        cursor.executemany(
            "INSERT INTO memory_vec(rowid, owner_id, embedding) VALUES (%s, %s, %s)", rows
        )


def nearest(
    *, owner_id: int, vector: bytes, k: int, context: bool = False
) -> list[tuple[int, float]]:
    """The owner's ``k`` memories nearest to ``vector``: (memory id, cosine distance). With
    ``context``, a memory is as near as the nearer of its own and its contextual key."""
    tables = ("memory_vec", "memory_context_vec") if context else ("memory_vec",)
    best: dict[int, float] = {}
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(
                f"SELECT rowid, distance FROM {table} "
                "WHERE embedding MATCH %s AND k = %s AND owner_id = %s ORDER BY distance",
                [vector, k, owner_id],
            )
            for memory_id, distance in cursor.fetchall():
                best[memory_id] = min(distance, best.get(memory_id, distance))
    return sorted(best.items(), key=lambda row: (row[1], -row[0]))[:k]


def distances(
    *, owner_id: int, vector: bytes, ids: list[int], context: bool = False
) -> dict[int, float]:
    """Cosine distance from ``vector`` to each of the owner's memories in ``ids`` that has one
    (with ``context``, the nearer of its two keys)."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v.rowid, vec_distance_cosine(v.embedding, %s) "
            "FROM json_each(%s) AS j CROSS JOIN memory_vec AS v ON v.rowid = j.value "
            "WHERE v.owner_id = %s",
            [vector, json.dumps(ids), owner_id],
        )
        found = dict(cursor.fetchall())
        if context:
            cursor.execute(
                "SELECT c.rowid, vec_distance_cosine(c.embedding, %s) "
                "FROM json_each(%s) AS j CROSS JOIN memory_context_vec AS c ON c.rowid = j.value "
                "WHERE c.owner_id = %s",
                [vector, json.dumps(ids), owner_id],
            )
            for memory_id, distance in cursor.fetchall():
                found[memory_id] = min(distance, found.get(memory_id, distance))
        return found


def own_vectors(ids: list[int]) -> dict[int, tuple[int, bytes]]:
    """memory id → (owner id, own vector blob), for the memories in ``ids`` that have one."""
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v.rowid, v.owner_id, v.embedding FROM json_each(%s) AS j "
            "CROSS JOIN memory_vec AS v ON v.rowid = j.value",
            [json.dumps(ids)],
        )
        return {memory_id: (owner_id, blob) for memory_id, owner_id, blob in cursor.fetchall()}


def context_vectors(ids: list[int]) -> dict[int, bytes]:
    """memory id → contextual key blob, for the memories in ``ids`` that have one."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.rowid, c.embedding FROM json_each(%s) AS j "
            "CROSS JOIN memory_context_vec AS c ON c.rowid = j.value",
            [json.dumps(ids)],
        )
        return dict(cursor.fetchall())


def replace_context_vectors(rows: list[tuple[int, int, bytes]], *, removed: list[int]) -> None:
    """Write (memory id, owner id, blob) contextual keys and drop the keys of ``removed``."""
    with connection.cursor() as cursor:
        gone = [(r[0],) for r in rows] + [(memory_id,) for memory_id in removed]
        cursor.executemany("DELETE FROM memory_context_vec WHERE rowid = %s", gone)
        cursor.executemany(
            "INSERT INTO memory_context_vec(rowid, owner_id, embedding) VALUES (%s, %s, %s)", rows
        )


def context_vector_count(*, owner_id: int | None = None) -> int:
    with connection.cursor() as cursor:
        if owner_id is None:
            cursor.execute("SELECT count(*) FROM memory_context_vec")
        else:
            cursor.execute(
                "SELECT count(*) FROM memory_context_vec WHERE owner_id = %s", [owner_id]
            )
        return cursor.fetchone()[0]


def vector_count(*, owner_id: int | None = None) -> int:
    with connection.cursor() as cursor:
        if owner_id is None:
            cursor.execute("SELECT count(*) FROM memory_vec")
        else:
            cursor.execute("SELECT count(*) FROM memory_vec WHERE owner_id = %s", [owner_id])
        return cursor.fetchone()[0]


def partition_rows(owner_id: int, ids: list[int] | None) -> list[tuple[int, bytes, bytes | None]]:
    """(memory id, own key, contextual key or None) of the member's memories in ``ids`` (every
    one of them with None), for the in-process copy."""
    with connection.cursor() as cursor:
        if ids is None:
            cursor.execute(
                "SELECT v.rowid, v.embedding, c.embedding FROM memory_vec AS v "
                "LEFT JOIN memory_context_vec AS c ON c.rowid = v.rowid WHERE v.owner_id = %s",
                [owner_id],
            )
        else:
            cursor.execute(
                "SELECT v.rowid, v.embedding, c.embedding FROM json_each(%s) AS j "
                "CROSS JOIN memory_vec AS v ON v.rowid = j.value "
                "LEFT JOIN memory_context_vec AS c ON c.rowid = v.rowid WHERE v.owner_id = %s",
                [json.dumps(ids), owner_id],
            )
        return cursor.fetchall()
