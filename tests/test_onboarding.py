"""The household: first-run setup, signing in, admins adding and removing members, and the
permanence of each member's Your Story."""

from __future__ import annotations

import pytest
from django.contrib.admin.sites import site as admin_site
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.test import RequestFactory
from django.urls import reverse

from memories.acts import ensure_your_story
from memories.models import Act, Memory

User = get_user_model()
PASSWORD = "a long household passphrase"


def your_story_of(user) -> Act:
    return Act.objects.get(owner=user, is_your_story=True)


def set_up(client, username="alice"):
    return client.post(
        reverse("setup"),
        {"username": username, "password1": PASSWORD, "password2": PASSWORD},
    )


# --- A fresh install ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/memories/search/?q=x", "/members/", "/settings/", "/accounts/login/", "/admin/"]
)
def test_a_fresh_install_sends_every_page_to_setup(client, db, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response.url == reverse("setup")


def test_a_fresh_install_leaves_the_tool_api_to_answer_for_itself(client, db):
    response = client.post("/api/tools/memory_query", {}, content_type="application/json")

    assert response.status_code == 401


def test_the_setup_page_asks_for_the_first_member(client, db):
    response = client.get(reverse("setup"))

    assert response.status_code == 200
    assert b"Set up your household" in response.content
    assert b'name="password2"' in response.content
    assert b"is_admin" not in response.content  # the first member is always the admin


def test_setup_creates_the_first_member_as_admin_with_your_story_and_signs_them_in(client, db):
    response = set_up(client)

    alice = User.objects.get()
    assert response.status_code == 302
    assert alice.username == "alice"
    assert alice.check_password(PASSWORD)
    assert alice.is_superuser and alice.is_staff
    assert your_story_of(alice).title == "Your Story"
    home = client.get(reverse("home"), follow=True)
    assert home.context["user"] == alice
    assert home.templates[0].name == "conversations/greeting.html"  # no conversation open yet
    assert b"Welcome, alice." in home.content


def test_setup_refuses_mismatched_passwords_and_creates_no_one(client, db):
    response = client.post(
        reverse("setup"),
        {"username": "alice", "password1": PASSWORD, "password2": PASSWORD + "!"},
    )

    assert response.status_code == 200
    assert b"The two password fields" in response.content
    assert not User.objects.exists()


def test_setup_is_gone_once_the_household_exists(client, db):
    set_up(client)

    assert client.get(reverse("setup")).status_code == 404
    assert set_up(client, username="mallory").status_code == 404
    assert list(User.objects.values_list("username", flat=True)) == ["alice"]


def test_setup_is_gone_for_visitors_too(client, alice):
    assert client.get(reverse("setup")).status_code == 404


# --- Signing in -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,args",
    [
        ("home", []),
        ("memories:search", []),
        ("memories:archive", []),
        ("memories:act", [1]),
        ("memories:detail", [1]),
        ("memories:edit", [1]),
        ("memories:delete", [1]),
        ("settings", []),
        ("export", ["json"]),
        ("members", []),
        ("member-remove", [1]),
    ],
)
def test_every_page_needs_a_signed_in_member(client, alice, name, args):
    url = reverse(name, args=args)

    response = client.get(url)

    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next={url}"


@pytest.mark.parametrize(
    "name", ["memories:create", "memories:reinforce", "memories:demote", "memories:restore"]
)
def test_every_action_needs_a_signed_in_member(client, alice, remember, name):
    memory = remember("Bin day is Tuesday")
    url = reverse(name, args=[] if name == "memories:create" else [memory.pk])

    response = client.post(url, {"content": "x"})

    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    memory.refresh_from_db()
    assert (memory.score, Memory.objects.count()) == (0, 1)


def test_a_member_signs_in_and_lands_where_they_were_going(client, alice):
    response = client.post(
        reverse("login"),
        {
            "username": "alice",
            "password": "correct horse battery staple",
            "next": reverse("settings"),
        },
    )

    assert response.status_code == 302
    assert response.url == reverse("settings")


def test_a_wrong_password_is_refused(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})

    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


# --- Members --------------------------------------------------------------------------------


def test_an_admin_sees_the_household(alice_client, bob):
    response = alice_client.get(reverse("members"))

    assert response.status_code == 200
    assert b"alice" in response.content and b"bob" in response.content


def test_an_admin_adds_a_member_who_gets_your_story(alice_client):
    response = alice_client.post(
        reverse("members"),
        {"username": "carol", "password1": PASSWORD, "password2": PASSWORD},
    )

    carol = User.objects.get(username="carol")
    assert response.status_code == 302
    assert not carol.is_superuser and not carol.is_staff
    assert carol.check_password(PASSWORD)
    assert your_story_of(carol).title == "Your Story"


def test_an_admin_can_add_another_admin(alice_client):
    alice_client.post(
        reverse("members"),
        {"username": "carol", "password1": PASSWORD, "password2": PASSWORD, "is_admin": "on"},
    )

    carol = User.objects.get(username="carol")
    assert carol.is_superuser and carol.is_staff


def test_adding_a_member_with_a_taken_name_is_refused(alice_client, bob):
    response = alice_client.post(
        reverse("members"),
        {"username": "bob", "password1": PASSWORD, "password2": PASSWORD},
    )

    assert response.status_code == 400
    assert b"A user with that username already exists." in response.content
    assert User.objects.filter(username="bob").count() == 1


def test_removing_a_member_asks_first(alice_client, bob, remember):
    remember("Bob's note", owner=bob)

    response = alice_client.get(reverse("member-remove", args=[bob.pk]))

    assert response.status_code == 200
    assert b"Remove bob?" in response.content
    # What goes, without counting or showing it: bob's rows are his alone, admins included.
    assert b"everything they stored" in response.content
    assert b"1 memory" not in response.content and b"Bob&#x27;s note" not in response.content
    assert User.objects.filter(pk=bob.pk).exists()


def test_an_admin_removes_a_member_and_their_memories_go_too(alice_client, alice, bob, remember):
    garden = Act.objects.create(owner=bob, title="Bob's garden")
    remember("Bob's note", owner=bob)
    remember("Bob's tomatoes", owner=bob, act=garden)
    remember("Alice's note")

    response = alice_client.post(reverse("member-remove", args=[bob.pk]))

    assert response.status_code == 302
    assert not User.objects.filter(pk=bob.pk).exists()
    assert not Memory.objects.filter(owner_id=bob.pk).exists()
    assert not Act.objects.filter(owner_id=bob.pk).exists()
    assert list(Memory.objects.values_list("content", flat=True)) == ["Alice's note"]
    page = alice_client.get(response.url)
    assert b"bob and everything they stored were removed." in page.content


def test_an_admin_cannot_remove_themself(alice_client, alice):
    response = alice_client.post(reverse("member-remove", args=[alice.pk]), follow=True)

    assert User.objects.filter(pk=alice.pk).exists()
    assert b"You cannot remove yourself" in response.content


def test_removing_someone_who_is_not_there_is_not_found(alice_client):
    assert alice_client.post(reverse("member-remove", args=[999])).status_code == 404


@pytest.mark.parametrize(
    "method,name",
    [("get", "members"), ("post", "members"), ("get", "member-remove"), ("post", "member-remove")],
)
def test_a_member_who_is_not_an_admin_is_forbidden_the_members_pages(
    bob_client, alice, method, name
):
    url = reverse(name, args=[alice.pk] if name == "member-remove" else [])

    response = getattr(bob_client, method)(
        url, {"username": "eve", "password1": PASSWORD, "password2": PASSWORD}
    )

    assert response.status_code == 403
    assert User.objects.filter(pk=alice.pk).exists()
    assert not User.objects.filter(username="eve").exists()


def test_only_admins_see_the_members_link(client, alice, bob):
    client.force_login(bob)
    assert reverse("members").encode() not in client.get(reverse("settings")).content
    client.force_login(alice)
    assert reverse("members").encode() in client.get(reverse("settings")).content


# --- Your Story is permanent --------------------------------------------------------------


def test_your_story_cannot_be_deleted(alice):
    story = ensure_your_story(owner=alice)

    with pytest.raises(ValueError, match="Your Story is permanent"):
        story.delete()

    assert Act.objects.filter(pk=story.pk).exists()


def test_other_acts_can_be_deleted(alice):
    garden = Act.objects.create(owner=alice, title="Garden")

    garden.delete()

    assert not Act.objects.filter(pk=garden.pk).exists()


def test_the_admin_has_no_delete_permission_for_your_story(alice):
    story = ensure_your_story(owner=alice)
    garden = Act.objects.create(owner=alice, title="Garden")
    request = RequestFactory().get("/admin/")
    request.user = alice
    act_admin = admin_site._registry[Act]

    assert not act_admin.has_delete_permission(request, story)
    assert act_admin.has_delete_permission(request, garden)


def test_the_admin_delete_page_of_your_story_is_forbidden(alice_client, alice):
    story = ensure_your_story(owner=alice)

    response = alice_client.post(
        reverse("admin:memories_act_delete", args=[story.pk]), {"post": "yes"}
    )

    assert response.status_code == 403
    assert Act.objects.filter(pk=story.pk).exists()


def test_your_story_cannot_be_archived(alice):
    story = ensure_your_story(owner=alice)
    story.status = Act.Status.ARCHIVED

    with pytest.raises(IntegrityError), transaction.atomic():
        story.save()

    story.refresh_from_db()
    assert story.status == Act.Status.ACTIVE


def test_other_acts_can_be_archived(alice):
    garden = Act.objects.create(owner=alice, title="Garden")
    garden.status = Act.Status.ARCHIVED

    garden.save()

    garden.refresh_from_db()
    assert garden.status == Act.Status.ARCHIVED


def test_a_member_created_any_way_at_all_has_your_story(db):
    carol = get_user_model().objects.create_user("carol")  # the shell, a script, the admin

    assert your_story_of(carol).title == "Your Story"


def test_a_member_has_exactly_one_your_story(alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        Act.objects.create(owner=alice, title="Another story", is_your_story=True)


def test_the_admin_offers_no_way_to_archive_your_story(alice_client, alice):
    story = ensure_your_story(owner=alice)

    response = alice_client.get(reverse("admin:memories_act_change", args=[story.pk]))

    assert response.status_code == 200
    assert b'name="status"' not in response.content


def test_a_household_whose_members_are_all_gone_is_set_up_again(client, alice):
    assert client.get(reverse("login")).status_code == 200

    User.objects.all().delete()

    response = client.get(reverse("login"))
    assert response.status_code == 302
    assert response.url == reverse("setup")
