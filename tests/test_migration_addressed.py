"""Migration 0009 marks the mentions that existing memories only speak to (issue 12)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("memories", "0008_context_keys")]
AFTER = [("memories", "0009_mention_addressed")]


@pytest.mark.django_db(transaction=True)
def test_existing_mentions_are_marked_when_the_memory_only_speaks_to_them(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User, Act = apps.get_model("auth", "User"), apps.get_model("conversations", "Act")
    Memory, Entity = apps.get_model("memories", "Memory"), apps.get_model("memories", "Entity")
    Mention = apps.get_model("memories", "Mention")
    owner = User.objects.create(username="alice")
    act = Act.objects.create(owner=owner, title="Your Story", is_your_story=True)
    nate = Entity.objects.create(owner=owner, name="Nate", normalized="nate", kind="person")
    to_him = Memory.objects.create(owner=owner, act=act, content="Joanna: Hey Nate! Look.")
    about_him = Memory.objects.create(owner=owner, act=act, content="Nate made ice cream.")
    for memory in (to_him, about_him):
        Mention.objects.create(entity=nate, memory=memory, surface="Nate")

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    marked = dict(
        apps.get_model("memories", "Mention").objects.values_list("memory_id", "addressed")
    )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert marked == {to_him.pk: True, about_him.pk: False}
