"""Where to go after an action: the ``next`` a form or link carries, checked once for every view.

A ``next`` is followed only when it is a path on this site: it starts with one "/" (not "//" or
"/\\", which browsers read as another host), has no scheme or host, and no control characters.
Anything else is ignored and the view's own default is used. Views redirect to the result with
``HttpResponseRedirect``, never ``redirect()``: that one takes a bare word ("foo") for the name
of a URL pattern and fails on it, after the action was already applied.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.http import url_has_allowed_host_and_scheme


def next_url(request: HttpRequest, default: str = "") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if is_local_path(target):
        return target
    return default


def is_local_path(target: str) -> bool:
    return (
        target.startswith("/")
        and not target.startswith(("//", "/\\"))
        and target.isprintable()
        and url_has_allowed_host_and_scheme(target, allowed_hosts=None)
    )
