"""The clients of bench/load.py: the mix of requests, HTTP on loopback, the client threads.

Each client thread sends one request at a time, drawn from ``MIX``, with ``http.client`` and a
new connection per request, and records a ``Sample`` per answer (or exception) into the shared
``Run``. ``prime`` first makes every gunicorn worker load torch, the model and the member's
vectors; ``sign_in`` goes through the real login form for a session cookie.
"""

from __future__ import annotations

import http.client
import json
import math
import random
import re
import subprocess
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.cookies import SimpleCookie

from keyword_queries import document_frequencies, make_queries
from load_server import GUNICORN_TIMEOUT
from recall_latency import questions
from synthetic_household import Corpus

CLIENT_TIMEOUT = GUNICORN_TIMEOUT + 10  # a request gunicorn kills still comes back as an error

# Kind of request → share of the mix. The tools are what agents call all day; people load
# pages now and then.
MIX = (
    ("memory_query", 35),
    ("search_memories", 30),
    ("page: search by keywords", 10),
    ("page: search by meaning", 5),
    ("page: act (Your Story)", 10),
    ("page: home", 10),
)
TOOLS = {"memory_query": 5, "search_memories": 10}  # tool → limit
PAGES = {kind for kind, _ in MIX if kind.startswith("page:")}


# --- HTTP ------------------------------------------------------------------------------------------


@dataclass
class Target:
    host: str
    port: int
    token: str
    cookie: str = ""
    act_path: str = ""


def send(target: Target, method: str, path: str, body: bytes | None = None, headers=None):
    connection = http.client.HTTPConnection(target.host, target.port, timeout=CLIENT_TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.getheaders(), response.read()
    finally:
        connection.close()


def cookies_of(headers) -> dict[str, str]:
    jar = SimpleCookie()
    for name, value in headers:
        if name.lower() == "set-cookie":
            jar.load(value)
    return {key: morsel.value for key, morsel in jar.items()}


def wait_until_up(target: Target, processes: list[subprocess.Popen], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(process.poll() is not None for process in processes):
            return False
        try:
            status, _, _ = send(target, "GET", "/accounts/login/")
            if status == 200:
                return True
        except OSError:
            pass
        time.sleep(0.25)
    return False


def sign_in(target: Target, username: str, password: str) -> str:
    """The real login form: its CSRF cookie and token, then the POST; returns the Cookie header."""
    status, headers, body = send(target, "GET", "/accounts/login/")
    csrf = cookies_of(headers)["csrftoken"]
    form_token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1).decode()
    form = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": form_token}
    ).encode()
    status, headers, _ = send(
        target,
        "POST",
        "/accounts/login/",
        form,
        {"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={csrf}"},
    )
    session = cookies_of(headers).get("sessionid")
    if status != 302 or not session:
        raise RuntimeError(f"signing in as {username} failed (status {status})")
    return f"sessionid={session}; csrftoken={csrf}"


def find_act_path(target: Target) -> str:
    """/memories/ redirects to the member's Your Story act page."""
    status, headers, _ = send(target, "GET", "/memories/", headers={"Cookie": target.cookie})
    location = dict((name.lower(), value) for name, value in headers).get("location", "")
    if status != 302 or not location.startswith("/acts/"):
        raise RuntimeError(f"/memories/ answered {status} {location!r}, not an act page")
    return location


# --- the clients -----------------------------------------------------------------------------------


@dataclass
class Sample:
    kind: str
    started: float
    ended: float
    outcome: str  # the status ("200") or the exception's name
    error: bool
    results: int | None  # API answers: how many results came back
    size: int


@dataclass
class Queries:
    keywords: list[str]
    questions: list[str]


@dataclass
class Run:
    samples: list[Sample] = field(default_factory=list)
    first_errors: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def household_queries(seed: int, memories: int) -> Queries:
    """400 keyword queries (bench/memory_query.py's mix) and 400 questions (those of
    bench/recall_latency.py); they depend only on the seed and the household's size."""
    corpus = Corpus(seed)
    df = document_frequencies(corpus.memories(memories, datetime.now(UTC)))
    return Queries(
        keywords=[q for _, q, _ in make_queries(random.Random(seed), 400, df, memories)],
        questions=questions(400, seed),
    )


def request_for(kind: str, rng: random.Random, queries: Queries, target: Target):
    if kind in TOOLS:
        query = rng.choice(queries.keywords if kind == "memory_query" else queries.questions)
        body = json.dumps({"query": query, "limit": TOOLS[kind]}).encode()
        headers = {"Authorization": f"Bearer {target.token}", "Content-Type": "application/json"}
        return "POST", f"/api/tools/{kind}", body, headers
    headers = {"Cookie": target.cookie}
    if kind == "page: search by keywords":
        query = urllib.parse.urlencode({"q": rng.choice(queries.keywords), "mode": "keywords"})
        return "GET", f"/memories/search/?{query}", None, headers
    if kind == "page: search by meaning":
        query = urllib.parse.urlencode({"q": rng.choice(queries.questions), "mode": "meaning"})
        return "GET", f"/memories/search/?{query}", None, headers
    if kind == "page: act (Your Story)":
        return "GET", target.act_path, None, headers
    return "GET", "/", None, headers


def client(index: int, seed: int, mix, queries: Queries, target: Target, until: float, run: Run):
    rng = random.Random(seed * 1000 + index)
    kinds, weights = zip(*mix, strict=True)
    samples = []
    while time.monotonic() < until:
        kind = rng.choices(kinds, weights)[0]
        method, path, body, headers = request_for(kind, rng, queries, target)
        started = time.monotonic()
        results = None
        try:
            status, _, data = send(target, method, path, body, headers)
            outcome, error, size = str(status), status >= 400, len(data)
            if kind in TOOLS and not error:
                results = data.count(b'"ref": "[id:')  # cheaper than parsing the JSON
        except Exception as exception:  # a refused or reset connection, a timeout: all errors
            outcome, error, size, data = type(exception).__name__, True, 0, str(exception).encode()
        samples.append(Sample(kind, started, time.monotonic(), outcome, error, results, size))
        if error:
            with run.lock:
                run.first_errors.setdefault(
                    f"{kind} {outcome}",
                    f"{method} {path[:80]} → {data[:300].decode(errors='replace')!r}",
                )
    with run.lock:
        run.samples += samples


def prime(target: Target, queries: Queries, workers: int) -> tuple[int, float]:
    """Rounds of ``2 × workers`` simultaneous ``search_memories`` calls, until a round comes
    back within a second: a sync worker takes one request at a time, so simultaneous calls
    reach every worker, and each loads torch, the model and the member's vectors on its first
    recall (several seconds, which would otherwise land in the warm-up of one client only)."""
    rng = random.Random(0)
    started = time.monotonic()
    rounds = 0
    slowest = math.inf
    while slowest >= 1.0 and rounds < 10:
        rounds += 1
        took: list[float] = []
        callers = [
            threading.Thread(target=_timed_call, args=(target, rng, queries, took))
            for _ in range(2 * workers)
        ]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        slowest = max(took)
    return rounds, time.monotonic() - started


def _timed_call(target: Target, rng: random.Random, queries: Queries, took: list[float]) -> None:
    method, path, body, headers = request_for("search_memories", rng, queries, target)
    begin = time.monotonic()
    try:
        send(target, method, path, body, headers)
    except OSError:
        pass
    took.append(time.monotonic() - begin)
