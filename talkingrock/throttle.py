"""Throttling of guessed secrets, on django-axes: passwords at sign-in, bearer tokens at the tool
API. Axes counts failures per (username, address) in the database; past AXES_FAILURE_LIMIT the
pair is locked out for AXES_COOLOFF_TIME, whatever is tried next (settings)."""

from __future__ import annotations

import math

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

# Tokens carry no username: every bad token from one address counts against this one name, so a
# client guessing tokens is stopped while members signing in from that address are not.
TOKEN_CREDENTIALS = {"username": "(tool API bearer token)"}
API_PREFIX = "/api/"


def cooloff_minutes(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return math.ceil(cool_off.total_seconds() / 60) if cool_off else 0


def locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the answer while a (username, address) is locked out, from the
    failure that reaches the limit on; JSON for the tool API, a page for people."""
    minutes = cooloff_minutes(request)
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"error": token_lockout_message(minutes)}, status=429)
    return render(request, "registration/locked_out.html", {"minutes": minutes}, status=429)


def token_lockout_message(minutes: int) -> str:
    return f"Too many invalid tokens from this address; try again in {minutes} minutes."


def token_locked(request: HttpRequest) -> bool:
    return AxesProxyHandler.is_locked(request, TOKEN_CREDENTIALS)


def token_failed(request: HttpRequest) -> None:
    """Count a bad token, as a failed sign-in is counted (axes listens to the same signal)."""
    user_login_failed.send(sender=__name__, credentials=TOKEN_CREDENTIALS, request=request)
