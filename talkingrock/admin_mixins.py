"""The admin's one rule: everyone curates only their own rows, household admins included.

A member's memories, conversations, narratives, items, entities and recalls are private to that
member. Household admins (superusers) manage members on the Members page and in the members
admin; nobody browses another member's rows. Every way the admin can name a row goes through the
owner-scoped queryset: changelists, change/delete/history pages (another member's id answers as
a missing one), list filters, search, actions, foreign-key choices, raw-id labels and
autocomplete (which asks the target model's admin for its queryset).
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.contrib import admin
from django.contrib.admin import widgets
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.urls import NoReverseMatch, reverse
from django.utils.text import Truncator


@cache
def owner_path(model) -> str | None:
    """The lookup from a row of ``model`` to the member who owns it: ``"pk"`` for members
    themselves, ``"owner"``, or a path through the row's required parent (a message belongs to
    whoever owns its conversation: ``"conversation__owner"``). None for rows nobody owns
    (permission groups, the task queue)."""
    if model._meta.label == settings.AUTH_USER_MODEL:
        return "pk"
    relations = [
        f
        for f in model._meta.concrete_fields
        if (f.many_to_one or f.one_to_one) and not f.null and f.related_model is not model
    ]
    for f in relations:
        if f.related_model._meta.label == settings.AUTH_USER_MODEL:
            return f.name
    for f in relations:
        inner = owner_path(f.related_model)
        if inner is not None:
            return f"{f.name}__{inner}"
    return None


def owner_id_of(obj) -> int | None:
    """The id of the member who owns ``obj``, following ``owner_path``."""
    path = owner_path(type(obj))
    if path is None:
        return None
    *parents, last = path.split("__")
    for name in parents:
        obj = getattr(obj, name)
    return obj.pk if last == "pk" else getattr(obj, f"{last}_id")


def owned_by(queryset, user):
    """``queryset`` narrowed to ``user``'s rows; unchanged for rows nobody owns."""
    path = owner_path(queryset.model)
    if path is None:
        return queryset
    # The pk, not request.user: a lazy user object is fine for a foreign key lookup but not
    # for path "pk" (the members admin), where it raised a TypeError.
    return queryset.filter(**{path: user.pk})


def is_curator(request) -> bool:
    """May use the admin at all: staff, which every household admin is."""
    return request.user.is_active and request.user.is_staff


class OwnedRawIdWidget(widgets.ForeignKeyRawIdWidget):
    """The raw-id box, its label looked up where the field looks for its choices.

    Django's widget reads the label through the default manager, so ``?memory=<id>`` on an add
    page (or a POST that re-renders) printed another member's memory next to the box.
    """

    def __init__(self, rel, admin_site, *, queryset, **kwargs):
        super().__init__(rel, admin_site, **kwargs)
        self.queryset = queryset

    def label_and_url_for_value(self, value):
        key = self.rel.get_related_field().name
        try:
            obj = self.queryset.using(self.db).get(**{key: value})
        except (ValueError, TypeError, ObjectDoesNotExist, ValidationError):
            return "", ""
        opts = obj._meta
        try:
            url = reverse(
                f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change", args=(obj.pk,)
            )
        except NoReverseMatch:
            url = ""  # no admin for the target model
        return Truncator(obj).words(14), url


class OwnedFieldsMixin:
    """Every foreign key and many-to-many field offers, and labels, only the member's rows."""

    def get_field_queryset(self, db, db_field, request):
        queryset = super().get_field_queryset(db, db_field, request)
        model = db_field.remote_field.model
        if owner_path(model) is None:
            return queryset
        if queryset is None:
            queryset = model._default_manager.using(db)
        return owned_by(queryset, request.user)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if "widget" not in kwargs and db_field.name in self.raw_id_fields:
            db = kwargs.get("using")
            queryset = self.get_field_queryset(db, db_field, request)
            if queryset is None:  # a kind of row nobody owns, with no admin ordering
                queryset = db_field.remote_field.model._default_manager.using(db)
            kwargs["queryset"] = queryset
            kwargs["widget"] = OwnedRawIdWidget(
                db_field.remote_field, self.admin_site, queryset=queryset, using=db
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class OwnedRowsAdmin(OwnedFieldsMixin):
    """A ModelAdmin over rows members own: each staff member, household admins included, sees
    and edits only their own. Rows of others are outside the queryset, so the admin answers
    their change, delete and history pages exactly as it answers an id that does not exist.

    A staff member needs no Django model permissions for their own rows: being staff in this
    household means "may curate what I own in the admin". What a superuser's permissions would
    add (everyone's rows) is what the privacy policy takes away, so they are not consulted.
    """

    # How a row names its owner; None: found from the model (``owner_path``).
    owner_field: str | None = None
    # What a member may do with their own rows here.
    may_add = True
    may_change = True
    may_delete = True

    def _owner_lookup(self) -> str:
        path = self.owner_field or owner_path(self.model)
        assert path is not None, f"{self.model.__name__} has no owner"
        return path

    def _is_own(self, request, obj) -> bool:
        return obj is None or owner_id_of(obj) == request.user.pk

    def get_queryset(self, request):
        return super().get_queryset(request).filter(**{self._owner_lookup(): request.user.pk})

    def get_list_filter(self, request):
        # A plain related-field filter lists every row of the related model (every member's
        # acts); the related-only filter lists those the member's own rows point to.
        return [
            (f, admin.RelatedOnlyFieldListFilter) if self._is_relation(f) else f
            for f in super().get_list_filter(request)
        ]

    def _is_relation(self, name) -> bool:
        if not isinstance(name, str) or "__" in name:
            return False
        return self.model._meta.get_field(name).is_relation

    def has_module_permission(self, request):
        return is_curator(request)

    def has_view_permission(self, request, obj=None):
        return is_curator(request) and self._is_own(request, obj)

    def has_add_permission(self, request):
        return self.may_add and is_curator(request)

    def has_change_permission(self, request, obj=None):
        return self.may_change and is_curator(request) and self._is_own(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.may_delete and is_curator(request) and self._is_own(request, obj)


class OwnedInline(OwnedFieldsMixin):
    """An inline of rows that belong to the parent's owner: shown to that owner, read-only.

    Inlines list what happened under a row (a recall's hits, a conversation's messages, a
    narrative's links); nobody edits those records here, household admins included.
    """

    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return owned_by(super().get_queryset(request), request.user)

    def has_view_permission(self, request, obj=None):
        # ``obj`` is the parent row.
        return is_curator(request) and (obj is None or owner_id_of(obj) == request.user.pk)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
