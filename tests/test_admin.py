"""Django admin for curation: every member, household admins included, curates only their own
rows; household admins manage members (here and on the Members page, including a password
reset) without seeing what anyone stored. The walk over every admin URL is in
test_admin_isolation.py."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.messages import get_messages
from django.urls import reverse

from conversations.services import add_message
from memories import services
from memories.acts import ensure_your_story
from memories.models import Act, Memory
from memories.recall import recall
from talkingrock.fields import StrictJSONFormField

User = get_user_model()
MISSING = 987654


@pytest.fixture
def carol(db):
    """A staff member who is not a superuser: curates her own rows in the admin."""
    return User.objects.create_user("carol", password="x", is_staff=True)


@pytest.fixture
def carol_client(client, carol):
    client.force_login(carol)
    return client


@pytest.fixture(params=["alice", "carol"])
def curator_client(request, client, alice, carol):
    """Signed in as a household admin (alice, a superuser) or as staff (carol): the admin's
    rules about rows are the same for both."""
    client.force_login({"alice": alice, "carol": carol}[request.param])
    return client


@pytest.fixture
def household(alice, bob, carol, remember):
    """Two memories each for alice, bob and carol, and an act each of alice's and carol's."""
    holiday = Act.objects.create(owner=alice, title="Alice's holiday")
    garden = Act.objects.create(owner=carol, title="Carol's garden")
    return {
        "alice": [
            remember("alice likes oat milk", act=holiday),
            remember("alice's boiler is due", tags="house"),
        ],
        "bob": [
            remember("bob walks the dog", owner=bob),
            remember("bob's bike needs oil", owner=bob, source="migration"),
        ],
        "carol": [
            remember("carol grows tomatoes", owner=carol, act=garden, tags="garden"),
            remember("carol's piano lesson is on Thursday", owner=carol),
        ],
        "holiday": holiday,
        "garden": garden,
    }


def listed(response) -> list[str]:
    """The objects a changelist shows, as strings."""
    return sorted(str(obj) for obj in response.context["cl"].result_list)


def contents(memories) -> list[str]:
    return sorted(str(m) for m in memories)


def answer(client, url: str, object_id) -> tuple:
    """What a page tells a visitor: status, where it leads, its messages (the id taken out),
    and the page itself (each page has a fresh CSRF token, which tells nothing)."""
    response = client.get(url)
    said = [str(m).replace(f"“{object_id}”", "“…”") for m in get_messages(response.wsgi_request)]
    if response.status_code == 302:
        client.get(response.url)  # where the messages are shown, and used up
    page = re.sub(r"[A-Za-z0-9]{64}", "<csrf>", response.content.decode())
    return response.status_code, response.get("Location"), said, page


# --- Memory ---------------------------------------------------------------------------------


def test_a_household_admin_sees_only_their_own_memories(alice_client, household):
    response = alice_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 200
    assert listed(response) == contents(household["alice"])
    assert b"bob walks the dog" not in response.content
    assert b"carol grows tomatoes" not in response.content


def test_the_memory_list_shows_the_columns_that_matter(alice_client, household):
    response = alice_client.get(reverse("admin:memories_memory_changelist"))

    assert response.context["cl"].list_display[1:6] == [
        "id",
        "short_content",
        "owner",
        "act",
        "source",
    ]  # [0] is the action checkbox
    assert b"alice likes oat milk" in response.content
    assert b"Alice&#x27;s holiday" in response.content


def test_the_memory_list_searches_only_ones_own_content_and_tags(curator_client, household):
    url = reverse("admin:memories_memory_changelist")
    by_content = curator_client.get(url, {"q": "tomatoes"})
    by_tag = curator_client.get(url, {"q": "garden"})
    others = curator_client.get(url, {"q": "dog"})

    is_carol = by_content.wsgi_request.user.username == "carol"
    assert listed(by_content) == (contents(household["carol"][:1]) if is_carol else [])
    assert listed(by_tag) == (contents(household["carol"][:1]) if is_carol else [])
    assert listed(others) == []


def test_the_memory_list_filters_by_source(alice_client, household, remember):
    migrated = remember("alice's notes from the old assistant", source="migration")

    response = alice_client.get(
        reverse("admin:memories_memory_changelist"), {"source__exact": "migration"}
    )

    assert listed(response) == contents([migrated])  # not bob's migrated bike


def test_the_memory_list_filters_by_act(alice_client, household):
    response = alice_client.get(
        reverse("admin:memories_memory_changelist"), {"act__id__exact": household["holiday"].pk}
    )

    assert listed(response) == contents(household["alice"][:1])


def test_filtering_by_another_members_act_finds_nothing(alice_client, household):
    response = alice_client.get(
        reverse("admin:memories_memory_changelist"), {"act__id__exact": household["garden"].pk}
    )

    assert listed(response) == []
    assert b"Carol&#x27;s garden" not in response.content


def test_the_memory_list_filters_archived_and_live(alice_client, alice, household):
    oat_milk = household["alice"][0]
    services.memory_archive(owner=alice, memory_id=oat_milk.pk)

    archived = alice_client.get(reverse("admin:memories_memory_changelist"), {"archived": "yes"})
    live = alice_client.get(reverse("admin:memories_memory_changelist"), {"archived": "no"})

    assert listed(archived) == contents([oat_milk])
    assert listed(live) == contents(household["alice"][1:])


def test_the_act_filter_lists_only_ones_own_acts(curator_client, household):
    response = curator_client.get(reverse("admin:memories_memory_changelist"))

    me = response.wsgi_request.user
    (act_filter,) = [f for f in response.context["cl"].filter_specs if f.title == "act"]
    offered = {title for _, title in act_filter.lookup_choices}
    assert offered <= {a.title for a in Act.objects.filter(owner=me)}
    assert offered  # each has memories in an act of their own
    assert not {"Carol's garden", "Alice's holiday"} <= offered


def test_a_staff_member_sees_only_their_own_memories(carol_client, household):
    response = carol_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 200
    assert listed(response) == contents(household["carol"])


def test_nobody_opens_another_members_memory(curator_client, household):
    bobs = household["bob"][0]

    response = curator_client.get(reverse("admin:memories_memory_change", args=[bobs.pk]))

    # The admin treats rows outside the queryset as missing: back to the index with a message.
    assert response.status_code == 302
    assert response.url == reverse("admin:index")


def test_another_members_memory_answers_exactly_like_a_missing_one(curator_client, household):
    bobs = household["bob"][0]
    for page in ("change", "delete", "history"):
        name = f"admin:memories_memory_{page}"

        theirs = answer(curator_client, reverse(name, args=[bobs.pk]), bobs.pk)
        missing = answer(curator_client, reverse(name, args=[MISSING]), MISSING)

        assert theirs == missing, page
        assert theirs[2] == ["memory with ID “…” doesn’t exist. Perhaps it was deleted?"]


def test_nobody_changes_another_members_memory(curator_client, household):
    bobs = household["bob"][0]

    curator_client.post(
        reverse("admin:memories_memory_change", args=[bobs.pk]), {"content": "carol was here"}
    )

    bobs.refresh_from_db()
    assert bobs.content == "bob walks the dog"


def test_nobody_deletes_another_members_memory(curator_client, household):
    bobs = household["bob"][0]
    changelist = reverse("admin:memories_memory_changelist")

    curator_client.post(reverse("admin:memories_memory_delete", args=[bobs.pk]), {"post": "yes"})
    curator_client.post(
        changelist, {"action": "delete_selected", "_selected_action": [bobs.pk], "post": "yes"}
    )

    assert Memory.objects.filter(pk=bobs.pk).exists()


def test_a_staff_member_opens_and_edits_their_own_memory(carol_client, carol, household):
    piano = household["carol"][1]
    url = reverse("admin:memories_memory_change", args=[piano.pk])

    page = carol_client.get(url)
    form = page.context["adminform"].form
    assert page.status_code == 200
    assert list(form.fields["owner"].queryset) == [carol]
    assert set(form.fields["act"].queryset) == {ensure_your_story(owner=carol), household["garden"]}


def test_a_household_admins_memory_form_offers_only_their_own_rows(alice_client, alice, household):
    oat_milk = household["alice"][0]

    page = alice_client.get(reverse("admin:memories_memory_change", args=[oat_milk.pk]))

    form = page.context["adminform"].form
    assert page.status_code == 200
    assert b"alice likes oat milk" in page.content
    assert list(form.fields["owner"].queryset) == [alice]
    assert set(form.fields["act"].queryset) == {
        ensure_your_story(owner=alice),
        household["holiday"],
    }
    assert not form.fields["narrative"].queryset.exclude(owner=alice).exists()
    assert not form.fields["conversation"].queryset.exclude(owner=alice).exists()


def test_a_raw_id_box_names_only_ones_own_rows(alice_client, alice, bob, household):
    mine, bobs = household["alice"][0], household["bob"][0]
    url = reverse("admin:memories_memorylink_add")

    own = alice_client.get(url, {"memory": mine.pk, "related": household["alice"][1].pk})
    other = alice_client.get(url, {"memory": bobs.pk, "related": household["bob"][1].pk})
    posted = alice_client.post(url, {"memory": bobs.pk, "related": mine.pk, "strength": 1})

    assert b"alice likes oat milk" in own.content  # the label is there for one's own row
    assert b"bob walks the dog" not in other.content
    assert b"bob&#x27;s bike needs oil" not in other.content
    assert posted.status_code == 200  # re-rendered with an error, bob's text nowhere
    assert "memory" in posted.context["adminform"].form.errors
    assert b"bob walks the dog" not in posted.content


def test_view_on_site_answers_another_members_row_like_a_missing_one(alice_client, household):
    content_type = ContentType.objects.get_for_model(Memory)
    mine, bobs = household["alice"][0], household["bob"][0]

    own = alice_client.get(reverse("admin:view_on_site", args=[content_type.pk, mine.pk]))
    theirs = answer(alice_client, reverse("admin:view_on_site", args=[content_type.pk, bobs.pk]), 0)
    missing = answer(
        alice_client, reverse("admin:view_on_site", args=[content_type.pk, MISSING]), 0
    )

    assert own.status_code == 302 and own.url == mine.get_absolute_url()
    assert theirs == missing
    assert theirs[0] == 404


def test_autocomplete_finds_only_ones_own_rows(curator_client, household):
    response = curator_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "memories", "model_name": "memory", "field_name": "act", "term": ""},
    )

    me = response.wsgi_request.user
    assert response.status_code == 200
    assert {r["text"] for r in response.json()["results"]} == {
        a.title for a in Act.objects.filter(owner=me)
    }


def test_a_member_who_is_not_staff_cannot_use_the_admin(bob_client, household):
    response = bob_client.get(reverse("admin:memories_memory_changelist"))

    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


# --- Act ------------------------------------------------------------------------------------


def test_a_household_admin_sees_only_their_own_acts(alice_client, alice, household):
    response = alice_client.get(reverse("admin:memories_act_changelist"))

    assert listed(response) == ["Alice's holiday", "Your Story"]
    assert {a.owner for a in response.context["cl"].result_list} == {alice}


def test_the_act_list_searches_and_filters_ones_own(alice_client, household):
    mine = alice_client.get(reverse("admin:memories_act_changelist"), {"q": "holiday"})
    theirs = alice_client.get(reverse("admin:memories_act_changelist"), {"q": "garden"})
    stories = alice_client.get(
        reverse("admin:memories_act_changelist"), {"is_your_story__exact": "1"}
    )

    assert listed(mine) == ["Alice's holiday"]
    assert listed(theirs) == []
    assert listed(stories) == ["Your Story"]


def test_a_staff_member_sees_only_their_own_acts(carol_client, carol, household):
    response = carol_client.get(reverse("admin:memories_act_changelist"))

    assert response.status_code == 200
    assert [a.owner for a in response.context["cl"].result_list] == [carol, carol]


def test_nobody_opens_another_members_act(curator_client, bob, household):
    bobs_story = ensure_your_story(owner=bob)

    response = curator_client.get(reverse("admin:memories_act_change", args=[bobs_story.pk]))

    assert response.status_code == 302
    assert response.url == reverse("admin:index")


# --- Members --------------------------------------------------------------------------------


def test_a_household_admin_sees_every_member(alice_client, household):
    response = alice_client.get(reverse("admin:auth_user_changelist"))

    assert listed(response) == ["alice", "bob", "carol"]


def test_the_member_list_searches_by_name(alice_client, household):
    response = alice_client.get(reverse("admin:auth_user_changelist"), {"q": "car"})

    assert listed(response) == ["carol"]


def test_a_household_admin_opens_a_member_but_not_what_they_stored(alice_client, bob, household):
    response = alice_client.get(reverse("admin:auth_user_change", args=[bob.pk]))

    assert response.status_code == 200
    assert b"bob walks the dog" not in response.content


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


def test_removing_a_member_in_the_admin_says_what_goes_without_showing_it(
    alice_client, bob, household
):
    page = alice_client.get(reverse("admin:auth_user_delete", args=[bob.pk]))
    action = alice_client.post(
        reverse("admin:auth_user_changelist"),
        {"action": "delete_selected", "_selected_action": [bob.pk]},
    )

    for response in (page, action):
        assert response.status_code == 200
        assert b"Everything they stored" in response.content
        assert b"bob walks the dog" not in response.content
        assert b"oil" not in response.content
        assert b"Your Story" not in response.content  # not even the names of his acts


def test_a_household_admin_removes_a_member_in_the_admin(alice_client, bob, household):
    response = alice_client.post(reverse("admin:auth_user_delete", args=[bob.pk]), {"post": "yes"})

    assert response.status_code == 302
    assert not User.objects.filter(pk=bob.pk).exists()
    assert not Memory.objects.filter(owner_id=bob.pk).exists()


def test_a_household_admin_cannot_remove_themself_in_the_admin(alice_client, alice, household):
    changelist = reverse("admin:auth_user_changelist")
    chosen = {"action": "delete_selected", "_selected_action": [alice.pk]}

    page = alice_client.post(reverse("admin:auth_user_delete", args=[alice.pk]), {"post": "yes"})
    asked = alice_client.post(changelist, chosen)
    confirmed = alice_client.post(changelist, {**chosen, "post": "yes"})

    assert page.status_code == 403
    assert asked.status_code == 200 and b"your own account" in asked.content
    assert confirmed.status_code == 403
    assert User.objects.filter(pk=alice.pk).exists()


# --- Recall trail, names and links ----------------------------------------------------------


@pytest.fixture
def trails(alice, carol, household, index):
    index()
    return {
        "alice": recall(alice, "boiler", k=2, purpose="chat").recall_id,
        "carol": recall(carol, "piano lesson", k=2, purpose="chat").recall_id,
    }


def test_each_member_sees_only_their_own_recall_trail(curator_client, trails):
    response = curator_client.get(reverse("admin:memories_recall_changelist"))

    me = response.wsgi_request.user.username
    other = "carol" if me == "alice" else "alice"
    assert listed(response) == ["chat: boiler" if me == "alice" else "chat: piano lesson"]
    theirs = reverse("admin:memories_recall_change", args=[trails[other]])
    assert curator_client.get(theirs).status_code == 302  # "does not exist", back to the index


def test_the_recall_trail_is_read_only_even_for_a_household_admin(alice_client, trails):
    url = reverse("admin:memories_recall_change", args=[trails["alice"]])

    response = alice_client.get(url)

    assert response.status_code == 200
    assert not response.context["has_change_permission"]
    assert b"alice&#x27;s boiler is due" in response.content  # the hits, inline
    assert alice_client.get(reverse("admin:memories_recall_add")).status_code == 403


def test_each_member_sees_only_their_own_names(curator_client, carol, remember, index):
    remember("The piano teacher is Mrs Patel.", owner=carol)
    remember("The dentist is Dr Novak.")
    index()

    response = curator_client.get(reverse("admin:memories_entity_changelist"))

    me = response.wsgi_request.user.username
    assert listed(response) == (["Mrs Patel"] if me == "carol" else ["Dr Novak"])


# --- JSON in the admin's forms ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e309", "null", "[" * 5000])
def test_a_json_field_that_is_not_json_is_refused_with_a_message(alice_client, alice, value):
    """The attack: the admin's Conversation form answered 500 for compression_report=NaN."""
    conversation, _ = add_message(owner=alice, content="Tiles or paint?")
    url = reverse("admin:conversations_conversation_change", args=[conversation.pk])
    page = alice_client.get(url)
    form = dict(page.context["adminform"].form.initial)

    data = {
        key: value.pk if hasattr(value, "pk") else value
        for key, value in form.items()
        if value is not None and not isinstance(value, dict | list)
    }
    data |= {"compression_report": value, "messages-TOTAL_FORMS": 0}
    data |= {"messages-INITIAL_FORMS": 0, "owner": alice.pk}
    response = alice_client.post(url, data)

    conversation.refresh_from_db()
    assert response.status_code == 200
    assert "Enter valid JSON" in response.content.decode() or "null is not allowed" in (
        response.content.decode()
    )
    assert conversation.compression_report == {}


def test_an_empty_json_field_means_its_default():
    field = StrictJSONFormField(null=False, empty={}, required=False)

    assert field.clean("") == {} and field.clean('{"a": 1}') == {"a": 1}
