"""The timeline page: a member's memories over time, drawn as SVG on the server (no JavaScript),
each drawing with a table of the same numbers beneath it for anyone who would rather read."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from memories import timeline as over_time


@login_required
def timeline(request: HttpRequest) -> HttpResponse:
    weeks = over_time.weeks_from(request.GET.get("weeks"))
    window = over_time.Window.ending(timezone.now(), weeks)
    context = {
        "weeks": weeks,
        "week_choices": sorted({*over_time.WEEK_CHOICES, weeks}),
        "window": window,
        "kept": over_time.kept_by_act(request.user, window),
        "threads": over_time.threads_by_week(request.user, window),
        "dated": over_time.dated_events(request.user, window),
        "ahead_weeks": over_time.AHEAD_WEEKS,
    }
    return render(request, "memories/timeline.html", context)
