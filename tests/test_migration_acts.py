"""Acts move from conversations to memories (issue 14) without losing a row or a link."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("memories", "0010_influence_and_corrections"), ("conversations", "0007_classification")]
AFTER = [("memories", "0012_act_table")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_acts_keep_their_rows_ids_and_links_when_they_move_to_memories():
    apps = _migrate(BEFORE)
    User, Act = apps.get_model("auth", "User"), apps.get_model("conversations", "Act")
    Conversation = apps.get_model("conversations", "Conversation")
    Memory = apps.get_model("memories", "Memory")
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.get_or_create(app_label="conversations", model="act")
    owner = User.objects.create(username="alice")
    Act.objects.create(owner=owner, title="Your Story", is_your_story=True)
    garden = Act.objects.create(owner=owner, title="Garden", status="archived")
    talk = Conversation.objects.create(owner=owner, act=garden, status="archived")
    memory = Memory.objects.create(owner=owner, act=garden, conversation=talk, content="Beds.")
    before = list(Act.objects.order_by("pk").values())

    apps = _migrate(AFTER)
    Act = apps.get_model("memories", "Act")
    after = list(Act.objects.order_by("pk").values())
    moved = apps.get_model("memories", "Memory").objects.get(pk=memory.pk)
    talked = apps.get_model("conversations", "Conversation").objects.get(pk=talk.pk)
    content_types = set(
        apps.get_model("contenttypes", "ContentType")
        .objects.filter(model="act")
        .values_list("app_label", flat=True)
    )
    with connection.cursor() as cursor:
        tables = set(connection.introspection.table_names(cursor))
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    assert after == before
    assert (moved.act_id, talked.act_id) == (garden.pk, garden.pk)
    assert content_types == {"memories"}
    assert "memories_act" in tables and "conversations_act" not in tables
