"""Throttling of guessed secrets, on django-axes: passwords at sign-in, bearer tokens at the tool
API and MCP. Axes records each failure per (username, address, browser) and locks out whatever
``lockout_parameters`` says failed AXES_FAILURE_LIMIT times within AXES_COOLOFF_TIME.

Passwords are counted twice:
- per (username, address), as before: one device guessing is stopped;
- per username, across every address: guesses spread over many addresses are stopped too. A
  member's own browser is not blocked by that count: a browser that has signed in to the account
  before carries a signed *device cookie* naming it (OWASP's "device cookies"), and for it only
  its own (username, address) count applies. So someone guessing from elsewhere cannot lock the
  member out of their usual browser, and a stolen cookie still buys only a few guesses.

Bearer tokens are counted per (presented token, address): a client retrying a revoked token is
stopped, and a valid token is never refused because of anyone else's failures (it is looked up
before any lockout is consulted). Bad tokens are also counted per address, which only changes
the answer to the next bad token from that address (429 instead of 401) and stops recording
them: tokens carry 256 random bits, so the count is about noise, not about guessing.
"""

from __future__ import annotations

import hashlib
import math

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

TOKEN_PREFIX = "bearer:"  # how a presented token is named among usernames in axes' records
API_PREFIXES = ("/api/", "/mcp")

DEVICE_COOKIE = "tr_device"
DEVICE_SALT = "household.throttle.device"
DEVICE_MAX_AGE = 60 * 60 * 24 * 180  # seconds: a browser unused for half a year is new again
DEVICE_NAMES = 8  # accounts one browser remembers (a family computer)
PER_DEVICE = [["username", "ip_address"]]
PER_ACCOUNT = [["username", "ip_address"], "username"]
PER_TOKEN = [["username", "ip_address"], "ip_address"]


def cooloff_minutes(request: HttpRequest) -> int:
    cool_off = get_cool_off(request)
    return math.ceil(cool_off.total_seconds() / 60) if cool_off else 0


def lockout_parameters(request, credentials: dict | None = None) -> list:
    """AXES_LOCKOUT_PARAMETERS: what a failure counts against, and what a lockout is checked on."""
    username = (credentials or {}).get("username")
    if isinstance(username, str) and username.startswith(TOKEN_PREFIX):
        return PER_TOKEN
    if isinstance(request, HttpRequest) and username in known_accounts(request):
        return PER_DEVICE
    return PER_ACCOUNT


# --- the device cookie ----------------------------------------------------------------------


def known_accounts(request: HttpRequest) -> list[str]:
    """The usernames this browser has signed in as (newest first), from its signed cookie."""
    value = request.get_signed_cookie(
        DEVICE_COOKIE, default="", salt=DEVICE_SALT, max_age=DEVICE_MAX_AGE
    )
    # Django usernames hold letters, digits and @.+-_ only: a comma never appears in one.
    return [name for name in value.split(",") if name]


def remember_device(request: HttpRequest, response: HttpResponse, username: str) -> None:
    """After a correct password: this browser is one the account uses."""
    names = [username, *(n for n in known_accounts(request) if n != username)][:DEVICE_NAMES]
    response.set_signed_cookie(
        DEVICE_COOKIE,
        ",".join(names),
        salt=DEVICE_SALT,
        max_age=DEVICE_MAX_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure(),
    )


# --- answers while locked out ----------------------------------------------------------------


def locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the answer while a sign-in is locked out, from the failure that
    reaches the limit on; JSON for the tool API, a page for people."""
    minutes = cooloff_minutes(request)
    if request.path.startswith(API_PREFIXES):
        return JsonResponse({"error": token_lockout_message(minutes)}, status=429)
    return render(request, "registration/locked_out.html", {"minutes": minutes}, status=429)


def token_lockout_message(minutes: int) -> str:
    return f"Too many invalid tokens from this address; try again in {minutes} minutes."


# --- bearer tokens ----------------------------------------------------------------------------


def token_credentials(raw: str) -> dict[str, str]:
    """A presented token as axes' "username": a digest, never the token itself."""
    digest = hashlib.sha256(raw.encode("utf-8", "replace")).hexdigest()[:32]
    return {"username": TOKEN_PREFIX + digest}


def token_locked(request: HttpRequest, credentials: dict[str, str]) -> bool:
    return AxesProxyHandler.is_locked(request, credentials)


def token_failed(request: HttpRequest, credentials: dict[str, str]) -> None:
    """Count a bad token, as a failed sign-in is counted (axes listens to the same signal)."""
    user_login_failed.send(sender=__name__, credentials=credentials, request=request)
