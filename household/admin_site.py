"""The household's admin site: Django's, holding only what members own, with a "view on site"
that keeps members' rows private.

Only ``OwnedRowsAdmin`` classes register here (``register``). Other apps' admins are left off
whatever they are: django-q2's would let a household admin schedule any dotted path as a task
(``builtins.eval`` reads every member's rows) and read every task's result, django-axes's shows
when each member signs in and from where, and auth's permission groups mean nothing in a
household where nobody's rows are shared. Task health is on Settings instead (talkingrock/jobs.py).

Django's ``/admin/r/<content_type_id>/<object_id>/`` looks the row up through the default
manager and redirects to its page: a redirect for another member's id and a 404 for a missing
one told a staff member which ids exist. Here the row is looked up through its ModelAdmin, whose
queryset holds only the visitor's own rows, and every row it cannot see gets the same 404.
Wired in by ``talkingrock.apps.HouseholdAdminConfig`` (``default_site``).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path

from talkingrock.admin_mixins import OwnedRowsAdmin

NOT_FOUND = "Nothing to show here."


class HouseholdAdminSite(admin.AdminSite):
    site_header = "Talking Rock administration"
    site_title = "Talking Rock admin"

    def register(self, model_or_iterable, admin_class=None, **options) -> None:
        """Register a ModelAdmin over rows members own; any other admin is not on this site."""
        if admin_class is None or not issubclass(admin_class, OwnedRowsAdmin):
            return
        super().register(model_or_iterable, admin_class, **options)

    def get_urls(self) -> list:
        return [
            self._view_on_site_url() if self._is_view_on_site(pattern) else pattern
            for pattern in super().get_urls()
        ]

    @staticmethod
    def _is_view_on_site(pattern) -> bool:
        return isinstance(pattern, URLPattern) and pattern.name == "view_on_site"

    def _view_on_site_url(self) -> URLPattern:
        return path(
            "r/<path:content_type_id>/<path:object_id>/",
            self.admin_view(self.view_on_site),
            name="view_on_site",
        )

    def view_on_site(
        self, request: HttpRequest, content_type_id: str, object_id: str
    ) -> HttpResponse:
        """Redirect to a row's page, if the visitor may see the row in this admin."""
        try:
            model = ContentType.objects.get_for_id(int(content_type_id)).model_class()
        except (ValueError, ContentType.DoesNotExist):
            raise Http404(NOT_FOUND) from None
        model_admin = self._registry.get(model)
        if model_admin is None or not hasattr(model, "get_absolute_url"):
            raise Http404(NOT_FOUND)
        obj = model_admin.get_object(request, object_id)  # None outside the queryset
        if obj is None or not model_admin.has_view_permission(request, obj):
            raise Http404(NOT_FOUND)
        return HttpResponseRedirect(obj.get_absolute_url())
