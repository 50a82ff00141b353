"""Django admin for curation: superusers see the whole household, staff only their own rows."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from conversations.models import Act
from conversations.services import ensure_your_story
from memories import services
from memories.models import Memory

User = get_user_model()


@pytest.fixture
def carol(db):
    """A staff member who is not a superuser: curates her own rows in the admin."""
    return User.objects.create_user("carol", password="x", is_staff=True)


@pytest.fixture
def carol_client(client, carol):
    client.force_login(carol)
    return client


@pytest.fixture
def household(alice, bob, carol, remember):
    """Two memories each for alice, bob and carol, and an act of carol's."""
    garden = Act.objects.create(owner=carol, title="Carol's garden")
    return {
        "alice": [remember("alice likes oat milk"), remember("alice's boiler is due")],
        "bob": [
            remember("bob walks the dog", owner=bob),
            remember("bob's bike needs oil", owner=bob, source="migration"),
        ],
        "carol": [
            remember("carol grows tomatoes", owner=carol, act=garden, tags="garden"),
            remember("carol's piano lesson is on Thursday", owner=carol),
        ],
        "garden": garden,
    }


def listed(response) -> list[str]:
    """The objects a changelist shows, as strings."""
    return sorted(str(obj) for obj in response.context["cl"].result_list)


def contents(memories) -> list[str]:
    return sorted(str(m) for m in memories)


# --- Memory ---------------------------------------------------------------------------------


def test_a_superuser_sees_every_members_memories(alice_client, household):
    response = alice_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 200
    assert listed(response) == contents(Memory.objects.all())
    assert len(listed(response)) == 6


def test_the_memory_list_shows_the_columns_that_matter(alice_client, household):
    response = alice_client.get(reverse("admin:memories_memory_changelist"))

    assert response.context["cl"].list_display[1:6] == [
        "id",
        "short_content",
        "owner",
        "act",
        "source",
    ]  # [0] is the action checkbox
    assert b"bob walks the dog" in response.content
    assert b"Carol&#x27;s garden" in response.content


def test_the_memory_list_searches_content_and_tags(alice_client, household):
    by_content = alice_client.get(reverse("admin:memories_memory_changelist"), {"q": "tomatoes"})
    by_tag = alice_client.get(reverse("admin:memories_memory_changelist"), {"q": "garden"})

    assert listed(by_content) == contents(household["carol"][:1])
    assert listed(by_tag) == contents(household["carol"][:1])


def test_the_memory_list_filters_by_source(alice_client, household):
    response = alice_client.get(
        reverse("admin:memories_memory_changelist"), {"source__exact": "migration"}
    )

    assert listed(response) == contents(household["bob"][1:])


def test_the_memory_list_filters_by_act(alice_client, household):
    response = alice_client.get(
        reverse("admin:memories_memory_changelist"), {"act__id__exact": household["garden"].pk}
    )

    assert listed(response) == contents(household["carol"][:1])


def test_the_memory_list_filters_archived_and_live(alice_client, alice, household):
    oat_milk = household["alice"][0]
    services.memory_archive(owner=alice, memory_id=oat_milk.pk)

    archived = alice_client.get(reverse("admin:memories_memory_changelist"), {"archived": "yes"})
    live = alice_client.get(reverse("admin:memories_memory_changelist"), {"archived": "no"})

    assert listed(archived) == contents([oat_milk])
    assert len(listed(live)) == 5 and str(oat_milk) not in listed(live)


def test_a_staff_member_sees_only_their_own_memories(carol_client, household):
    response = carol_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 200
    assert listed(response) == contents(household["carol"])


def test_a_staff_member_searching_finds_only_their_own(carol_client, household):
    response = carol_client.get(reverse("admin:memories_memory_changelist"), {"q": "dog"})

    assert listed(response) == []


def test_a_staff_members_act_filter_lists_only_their_acts(carol_client, household):
    response = carol_client.get(reverse("admin:memories_memory_changelist"))

    filter_titles = [f.title for f in response.context["cl"].filter_specs]
    assert "act" not in filter_titles
    assert b"bob walks the dog" not in response.content


def test_a_staff_member_cannot_open_another_members_memory(carol_client, household):
    bobs = household["bob"][0]

    response = carol_client.get(reverse("admin:memories_memory_change", args=[bobs.pk]))

    # The admin treats rows outside the queryset as missing: back to the index with a message.
    assert response.status_code == 302
    assert response.url == reverse("admin:index")


def test_a_staff_member_cannot_change_another_members_memory(carol_client, household):
    bobs = household["bob"][0]

    carol_client.post(
        reverse("admin:memories_memory_change", args=[bobs.pk]), {"content": "carol was here"}
    )

    bobs.refresh_from_db()
    assert bobs.content == "bob walks the dog"


def test_a_staff_member_cannot_delete_another_members_memory(carol_client, household):
    bobs = household["bob"][0]

    carol_client.post(reverse("admin:memories_memory_delete", args=[bobs.pk]), {"post": "yes"})

    assert Memory.objects.filter(pk=bobs.pk).exists()


def test_a_staff_member_opens_and_edits_their_own_memory(carol_client, carol, household):
    piano = household["carol"][1]
    url = reverse("admin:memories_memory_change", args=[piano.pk])

    page = carol_client.get(url)
    form = page.context["adminform"].form
    assert page.status_code == 200
    assert list(form.fields["owner"].queryset) == [carol]
    assert set(form.fields["act"].queryset) == {ensure_your_story(owner=carol), household["garden"]}


def test_a_superuser_opens_any_members_memory(alice_client, household):
    bobs = household["bob"][0]

    response = alice_client.get(reverse("admin:memories_memory_change", args=[bobs.pk]))

    assert response.status_code == 200
    assert b"bob walks the dog" in response.content


def test_a_member_who_is_not_staff_cannot_use_the_admin(bob_client, household):
    response = bob_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


# --- Act ------------------------------------------------------------------------------------


def test_a_superuser_sees_every_members_acts(alice_client, household):
    response = alice_client.get(reverse("admin:conversations_act_changelist"))

    assert listed(response) == sorted(str(a) for a in Act.objects.all())
    assert len(listed(response)) == 4  # three Your Stories and Carol's garden


def test_the_act_list_searches_and_filters(alice_client, household):
    searched = alice_client.get(reverse("admin:conversations_act_changelist"), {"q": "garden"})
    stories = alice_client.get(
        reverse("admin:conversations_act_changelist"), {"is_your_story__exact": "1"}
    )

    assert listed(searched) == ["Carol's garden"]
    assert listed(stories) == ["Your Story"] * 3


def test_a_staff_member_sees_only_their_own_acts(carol_client, carol, household):
    response = carol_client.get(reverse("admin:conversations_act_changelist"))

    assert response.status_code == 200
    assert [a.owner for a in response.context["cl"].result_list] == [carol, carol]


def test_a_staff_member_cannot_open_another_members_act(carol_client, bob, household):
    bobs_story = ensure_your_story(owner=bob)

    response = carol_client.get(reverse("admin:conversations_act_change", args=[bobs_story.pk]))

    assert response.status_code == 302
    assert response.url == reverse("admin:index")


# --- Members --------------------------------------------------------------------------------


def test_a_superuser_sees_every_member(alice_client, household):
    response = alice_client.get(reverse("admin:auth_user_changelist"))

    assert listed(response) == ["alice", "bob", "carol"]


def test_the_member_list_searches_by_name(alice_client, household):
    response = alice_client.get(reverse("admin:auth_user_changelist"), {"q": "car"})

    assert listed(response) == ["carol"]


def test_a_staff_member_sees_only_themself(carol_client, household):
    response = carol_client.get(reverse("admin:auth_user_changelist"))

    assert listed(response) == ["carol"]


def test_a_staff_member_cannot_open_another_member(carol_client, alice, household):
    response = carol_client.get(reverse("admin:auth_user_change", args=[alice.pk]))

    assert response.status_code == 302
    assert response.url == reverse("admin:index")


def test_a_staff_member_cannot_make_themself_a_superuser(carol_client, carol, household):
    url = reverse("admin:auth_user_change", args=[carol.pk])

    page = carol_client.get(url)
    carol_client.post(url, {"username": "carol", "is_staff": "on", "is_superuser": "on"})

    carol.refresh_from_db()
    assert page.status_code == 200  # may look
    assert b'name="is_superuser"' not in page.content
    assert not carol.is_superuser


def test_a_member_added_in_the_admin_gets_your_story(alice_client):
    alice_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "dave",
            "password1": "a long household passphrase",
            "password2": "a long household passphrase",
            "usable_password": "true",
        },
    )

    dave = User.objects.get(username="dave")
    assert Act.objects.filter(owner=dave, is_your_story=True).exists()


# --- Recall trail, names and links ----------------------------------------------------------


@pytest.fixture
def trails(alice, carol, household, index):
    from memories.recall import recall

    index()
    return {
        "alice": recall(alice, "boiler", k=2, purpose="chat").recall_id,
        "carol": recall(carol, "piano lesson", k=2, purpose="chat").recall_id,
    }


def test_a_staff_member_sees_only_their_own_recall_trail(carol_client, trails):
    response = carol_client.get(reverse("admin:memories_recall_changelist"))

    assert listed(response) == ["chat: piano lesson"]
    other = reverse("admin:memories_recall_change", args=[trails["alice"]])
    assert carol_client.get(other).status_code == 302  # "does not exist", back to the index


def test_the_recall_trail_is_read_only_even_for_a_superuser(alice_client, trails):
    url = reverse("admin:memories_recall_change", args=[trails["alice"]])

    response = alice_client.get(url)

    assert response.status_code == 200
    assert not response.context["has_change_permission"]
    assert alice_client.get(reverse("admin:memories_recall_add")).status_code == 403


def test_a_staff_member_sees_only_their_own_names(carol_client, carol, remember, index):
    remember("The piano teacher is Mrs Patel.", owner=carol)
    remember("The dentist is Dr Novak.")
    index()

    response = carol_client.get(reverse("admin:memories_entity_changelist"))

    assert listed(response) == ["Mrs Patel"]
