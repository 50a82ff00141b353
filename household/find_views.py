"""The page behind the header's search box (household/find.py does the finding)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from household import find as finding
from talkingrock.text import MAX_SEARCH_CHARS


@login_required
def find(request: HttpRequest) -> HttpResponse:
    asked = request.GET.get("q", "")
    found = finding.find(request.user, asked)
    return render(
        request,
        "household/find.html",
        {
            "found": found,
            "find_query": found.query,  # the header's box shows what was looked for
            "asked": bool(asked.strip()),
            "max_search_chars": MAX_SEARCH_CHARS,
        },
    )
