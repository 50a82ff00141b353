"""Migration conversations 0011 takes the offline engine's replies out of the indexes: they only
gave back what the member said or kept. A model's reply and the member's words stay evidence;
every message stays in its transcript."""

from __future__ import annotations

import importlib

from django.apps import apps

from conversations import services
from conversations.models import Message
from memories.models import Memory

migration = importlib.import_module("conversations.migrations.0011_offline_replies_not_evidence")


def test_offline_replies_recorded_before_leave_the_indexes_and_nothing_else_does(alice):
    conversation, said = services.add_message(owner=alice, content="the boiler code is 4471")
    offline, model = (
        services.add_message(owner=alice, content=text, role="assistant")[1]
        for text in ("Noted: “the boiler code is 4471”.", "Write it inside the cupboard door.")
    )
    Message.objects.filter(pk=offline.pk).update(engine="offline")
    Message.objects.filter(pk=model.pk).update(engine="ollama:llama3.2:3b")

    migration.forget_offline_replies(apps, None)

    kept = set(
        Memory.everything.filter(conversation=conversation).values_list("message", flat=True)
    )
    assert kept == {said.pk, model.pk}
    assert conversation.messages.count() == 3
