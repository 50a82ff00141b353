from __future__ import annotations

from collections import Counter

from django.contrib import admin
from django.contrib.admin.utils import NestedObjects, unquote
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import router
from django.http import Http404
from django.shortcuts import redirect
from django.utils.text import capfirst

from talkingrock.admin_mixins import OwnedRowsAdmin, is_curator
from talkingrock.models import ApiToken

User = get_user_model()

# What removing a member takes with them, said without naming any of it.
EVERYTHING_STORED = (
    "Everything they stored: memories, acts, conversations, narratives, recall trails and API "
    "tokens"
)


@admin.register(User)
class MemberAdmin(OwnedRowsAdmin, UserAdmin):
    """Members. Household admins (superusers) manage every member: add, change, remove, and
    reset a password through the household's one-time link (never by typing one). Other staff see only themselves, read-only. Nobody sees another member's
    rows from here, not even in the delete confirmation (``get_deleted_objects``)."""

    owner_field = "pk"
    list_display = ["username", "email", "is_staff", "is_superuser", "last_login"]
    list_filter = ["is_staff", "is_superuser", "is_active"]
    # Django's groups and per-user permissions are left off: nothing here consults them (each
    # member curates only their own rows), and an admin should not think they grant anything.
    fieldsets = [
        (None, {"fields": ["username", "password"]}),
        ("Personal info", {"fields": ["first_name", "last_name", "email"]}),
        ("Role", {"fields": ["is_active", "is_staff", "is_superuser"]}),
        ("Important dates", {"fields": ["last_login", "date_joined"]}),
    ]
    filter_horizontal = []

    def _manages_members(self, request) -> bool:
        return is_curator(request) and request.user.is_superuser

    def get_queryset(self, request):
        if self._manages_members(request):
            # Every member: admins manage members (not what they stored).
            return UserAdmin.get_queryset(self, request)
        return super().get_queryset(request)  # themself

    def has_view_permission(self, request, obj=None):
        return self._manages_members(request) or super().has_view_permission(request, obj)

    # A staff member may look at their own account but not edit it here: the form would let
    # them tick "superuser".
    def has_add_permission(self, request):
        return self._manages_members(request)

    def has_change_permission(self, request, obj=None):
        return self._manages_members(request)

    def has_delete_permission(self, request, obj=None):
        # Not yourself, as on the Members page: another admin can.
        return self._manages_members(request) and (obj is None or obj.pk != request.user.pk)

    def user_change_password(self, request, id, form_url=""):
        """Django's page lets an admin type a member's new password and sign in as them, without
        the member ever knowing. Here it leads to the household's reset instead: a one-time link
        the member uses to choose their own, and a record they are shown
        (household/passwords.py). Your own password is changed with your current one."""
        member = self.get_object(request, unquote(id))
        if member is None:
            raise Http404("Nothing to show here.")
        if member.pk == request.user.pk:
            return redirect("password-change")
        if not self.has_change_permission(request, member):
            raise Http404("Nothing to show here.")
        return redirect("member-reset", member.pk)

    def get_deleted_objects(self, objs, request):
        """Django's confirmation lists every row a deletion takes, by its text: a member's
        memories, word for word. This one says what goes without saying what it is."""
        members = list(objs)
        to_delete = []
        for member in members:
            to_delete += [
                f"{capfirst(User._meta.verbose_name)}: {member.username}",
                [EVERYTHING_STORED],
            ]
        model_count = {User._meta.verbose_name_plural: len(members)}
        perms_needed = set()
        if not self._manages_members(request):
            perms_needed.add(User._meta.verbose_name_plural)
        if any(member.pk == request.user.pk for member in members):
            perms_needed.add("your own account")
        return to_delete, model_count, perms_needed, self._blocking(members)

    def _blocking(self, members) -> list[str]:
        """Rows that would stop the deletion (a protected or restricted reference from outside
        the members' own data), counted by kind, never shown."""
        if not members:
            return []
        collector = NestedObjects(using=router.db_for_write(User))
        collector.collect(members)
        kinds = Counter(capfirst(obj._meta.verbose_name_plural) for obj in collector.protected)
        return [f"{kind}: {count}" for kind, count in sorted(kinds.items())]


@admin.register(ApiToken)
class ApiTokenAdmin(OwnedRowsAdmin, admin.ModelAdmin):
    list_display = ["name", "hint", "owner", "created_at", "last_used_at"]
    list_select_related = ["owner"]
    readonly_fields = ["hint", "created_at", "last_used_at"]
    # Tokens are issued on the settings page, where the secret is shown once.
    may_add = False
