"""Bringing conversations in from elsewhere, on the Conversations page: the upload (read and
checked at once: a bad file is refused with the reason and changes nothing) and the import's
own page, which follows the worker conversation by conversation (conversations/importing.py).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from conversations import importing, views
from conversations.forms import ImportForm
from conversations.models import ConversationImport
from memories.porting import ImportFormatError


@login_required
@require_POST
def upload(request: HttpRequest) -> HttpResponse:
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            importing.check_size(upload.size)  # before reading it
            job = importing.queue(owner=request.user, data=importing.load(upload.read()))
        except ImportFormatError as error:
            form.add_error("file", str(error))
        else:
            return redirect(job)
    return views.archive_page(request, import_form=form, status=400)


def _import(request: HttpRequest, pk: int) -> ConversationImport:
    return get_object_or_404(ConversationImport, pk=pk, owner=request.user)


@login_required
def detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = _import(request, pk)
    template = "conversations/_import.html" if request.htmx else "conversations/import.html"
    context = {"job": job, "counts": _counts(job), "rows": _rows(job)}
    return render(request, template, context)


@login_required
@require_POST
def retry(request: HttpRequest, pk: int) -> HttpResponse:
    importing.retry(_import(request, pk))
    return redirect("conversations:import", pk=pk)


def _rows(job: ConversationImport) -> list[dict]:
    """The report's entries, each with its first moment as a date-time to show."""
    return [
        entry | {"started": datetime.fromisoformat(entry["started_at"])} for entry in job.report
    ]


def _counts(job: ConversationImport) -> dict[str, int]:
    states = [entry["state"] for entry in job.report]
    return {state.replace(" ", "_"): states.count(state) for state in set(states)} | {
        "total": len(states)
    }
