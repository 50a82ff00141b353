"""Throughput and latency of the running app under concurrent clients ("household trust",
point 4: threads).

Usage (from the project root)::

    .venv/bin/python bench/load.py [--clients 8] [--duration 30] [--warmup 10] [--threads 1]
        [--memories 25000] [--seed 1] [--reuse] [--keep] [--no-worker] [--workers 2]
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --token tr_...
        [--user NAME --password PASSWORD]

By default the script serves the app itself, as ``make run`` does (scripts/serve.sh):

1. a data directory (``TALKINGROCK_DATA_DIR``) with the household of bench/recall_latency.py:
   ``--memories`` memories for four members holding 40/30/20/10 %, so the measured member
   (maya) has about 10,000 of the default 25,000; a quarter come from five-memory
   conversations; every one stored through ``memory_store`` and embedded and entity-indexed by
   the real write path (all-MiniLM-L6-v2), so ``search_memories`` does real vector recall. A
   fresh temporary directory, removed at the end unless ``--keep``. With ``--reuse`` the seeded
   database is built once in var/bench-load/household-<memories>-seed<seed>/ and each run works
   on a copy of it (the runs write recall trails and links, the cache stays as built);
2. in a child process: ``migrate``, a password for the member and an API token;
3. ``gunicorn talkingrock.wsgi:application --workers 2 --timeout 120 --access-logfile -`` on
   127.0.0.1 and a free port, with ``TALKINGROCK_THREADS=--threads`` (talkingrock/threads.py:
   every numeric library's thread count in every process), and ``manage.py qcluster`` beside it
   unless ``--no-worker``; their output goes to server.log and worker.log in the data directory.
   The script waits until the login page answers (exit code 2 if it never does), then signs in
   through the real login form for a session cookie.

``--url URL --token T`` measures an already running server instead; page loads need
``--user``/``--password`` (without them the mix is the two tools only).

``--clients`` threads of this one process each send one request at a time, with ``http.client``
on loopback, a new connection per request (gunicorn's sync workers close it after each
response). Threads, not processes: the clients spend their time blocked on sockets, which
releases the GIL, so one light process (its CPU time is printed) leaves the two cores to the
server. Each request is drawn from the mix below, with queries from bench/memory_query.py (the
keyword mix: rare and mid-frequency words, agent phrasing, names, punctuation and FTS syntax,
no match) for ``memory_query`` and the keyword search page, and the household questions of
bench/recall_latency.py for ``search_memories`` and the search page by meaning.

Pages are fetched without their static files (a browser loads those once and caches them).

First, rounds of simultaneous ``search_memories`` calls until every gunicorn worker has loaded
torch, the model and the member's vectors (several seconds, once per worker); then ``--warmup``
seconds of the mix, left out of the figures; then ``--duration`` seconds measured. The figures
are the requests completed inside that window: count, requests/s, p50/p95/max latency and
errors (an exception or a status of 400 or more), per kind and overall, with every status seen.
Also printed: the command, date, machine, load average before and after, the server's settings,
each server process's thread count and CPU time in the window, the CPU time everything else on
the machine took meanwhile (with a warning when it is more than 5 %: the figures are then not
the app's alone), and what the server logged (tracebacks, "database is locked", worker timeouts).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import platform
import random
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.cookies import SimpleCookie
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_query import MEMBERS, Corpus, document_frequencies, make_queries, percentile  # noqa: E402
from recall_latency import ingest, questions, setup_django  # noqa: E402

MEMBER = MEMBERS[0]  # the largest member of the shared household (40 % of the memories)
CACHE_ROOT = ROOT / "var" / "bench-load"
BIN = Path(sys.executable).parent
GUNICORN_TIMEOUT = 120  # as scripts/serve.sh
CLIENT_TIMEOUT = GUNICORN_TIMEOUT + 10  # a request gunicorn kills still comes back as an error
STARTUP_SECONDS = 120
# Share of the machine's CPU in the window that other processes may take before the report
# says the figures are not the app's alone (a test suite in another shell takes 25-50 %).
OTHERS_WARNING = 0.05

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


# --- the data directory (child processes with Django) --------------------------------------------


def child_prepare(args) -> int:
    """Migrate, seed the household if the database has none, and with ``--account-file`` give
    the member a password and a token (written to that file for the parent)."""
    setup_django(Path(os.environ["TALKINGROCK_DATA_DIR"]))
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import F

    from memories.models import Memory
    from talkingrock.models import ApiToken

    call_command("migrate", verbosity=0)
    User = get_user_model()
    if not User.objects.filter(username=MEMBER).exists():
        print(f"seeding {args.memories:,} memories (seed {args.seed}) …", flush=True)
        facts = ingest(args.memories, args.seed)
        print(
            f"seeded: {facts['memories']:,} memories stored, embedded and indexed in "
            f"{facts['seconds']:,.0f} s ({facts['memories'] / facts['seconds']:,.0f}/s)",
            flush=True,
        )
    member = User.objects.get(username=MEMBER)
    account = {
        "username": member.username,
        "household_memories": Memory.objects.count(),
        "member_memories": Memory.objects.filter(owner=member).count(),
        "member_indexed": Memory.objects.filter(
            owner=member, indexed_hash=F("content_hash")
        ).count(),
    }
    if args.account_file:
        account["password"] = secrets.token_urlsafe(16)
        member.set_password(account["password"])
        member.save(update_fields=["password"])
        _, account["token"] = ApiToken.issue(owner=member, name="bench/load.py")
    # Everything into the main file, so that a copy of it alone is the whole database.
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    if args.account_file:
        Path(args.account_file).write_text(json.dumps(account))
    return 0


def run_child(data_dir: Path, args, account_file: Path | None, threads: int) -> None:
    command = [sys.executable, str(Path(__file__).resolve()), "--child-prepare"]
    command += ["--memories", str(args.memories), "--seed", str(args.seed)]
    if account_file:
        command += ["--account-file", str(account_file)]
    env = {**os.environ, "TALKINGROCK_DATA_DIR": str(data_dir), "TALKINGROCK_THREADS": str(threads)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(command, env=env, check=True, cwd=ROOT)


def prepare_data(args, run_dir: Path) -> dict:
    # Seeding is a batch job with the machine to itself: every core embeds.
    seed_threads = os.cpu_count() or 1
    if args.reuse:
        cache = CACHE_ROOT / f"household-{args.memories}-seed{args.seed}"
        marker = cache / "household.json"
        if not marker.exists():  # absent, or a build that was interrupted
            shutil.rmtree(cache, ignore_errors=True)
            cache.mkdir(parents=True)
            log(f"building the cached household in {cache} (once) …")
            run_child(cache, args, None, seed_threads)
            marker.write_text(json.dumps({"built": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"}))
        else:
            log(
                f"reusing the household in {cache} (built {json.loads(marker.read_text())['built']})"
            )
        for name in ("talkingrock.sqlite3", "talkingrock.sqlite3-wal"):
            if (cache / name).exists():
                shutil.copy2(cache / name, run_dir / name)
    account_file = run_dir / "account.json"
    run_child(run_dir, args, account_file, seed_threads)
    return json.loads(account_file.read_text())


# --- the server --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: list[str], env: dict, log_path: Path) -> subprocess.Popen:
    # Its own session, as in scripts/serve.sh: the whole tree is found (and stopped) by its id.
    with log_path.open("ab") as output:
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the leader only (gunicorn's master stops its workers, qcluster its children;
    a second signal mid-shutdown trips django-q2 up), then SIGKILL to whatever is left."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for pid in session_processes(process.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@dataclass
class ProcessFacts:
    pid: int
    name: str
    threads: int
    cpu_seconds: float


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from the third (state) on


def session_processes(session: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if (
            entry.name.isdigit()
            and (fields := _stat(int(entry.name)))
            and int(fields[3]) == session
        ):
            found.append(int(entry.name))
    return sorted(found)


def process_facts(sessions: dict[str, int]) -> dict[int, ProcessFacts]:
    ticks = os.sysconf("SC_CLK_TCK")
    facts = {}
    for label, session in sessions.items():
        for pid in session_processes(session):
            fields = _stat(pid)
            if fields is None:
                continue
            role = "master" if pid == session else "child"
            if label == "gunicorn" and role == "child":
                role = "worker"
            facts[pid] = ProcessFacts(
                pid=pid,
                name=f"{label} {role}",
                threads=int(fields[17]),
                cpu_seconds=(int(fields[11]) + int(fields[12])) / ticks,
            )
    return facts


def busy_cpu_seconds() -> float:
    """CPU time the whole machine has spent busy (every process, every core) since boot."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    # user, nice, system, idle, iowait, irq, softirq; steal (the hypervisor's) is not ours
    return (sum(fields[:7]) - idle) / os.sysconf("SC_CLK_TCK")


def log_findings(paths: list[Path]) -> list[str]:
    lines = []
    patterns = {
        "tracebacks": "Traceback (most recent call last)",
        '"database is locked"': "database is locked",
        "worker timeouts": "WORKER TIMEOUT",
        "worker (re)boots": "Booting worker",
        "ERROR lines": "ERROR",
    }
    for path in paths:
        if not path.exists():
            continue
        text = path.read_text(errors="replace")
        counts = {name: text.count(pattern) for name, pattern in patterns.items()}
        lines.append(
            f"{path.name}: " + ", ".join(f"{name} {count}" for name, count in counts.items())
        )
        if counts["tracebacks"]:
            start = text.rindex("Traceback (most recent call last)")
            last = text[start:].splitlines()[:40]
            lines.append(f"last traceback in {path.name}:")
            lines += [f"    {line}" for line in last]
    return lines


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


# --- the report ------------------------------------------------------------------------------------


def fmt_ms(seconds: list[float], pct: float) -> str:
    return f"{1000 * percentile(seconds, pct):.0f}" if seconds else "–"


def table(samples: list[Sample], duration: float, mix) -> list[str]:
    lines = [
        "| requests | n | req/s | p50 ms | p95 ms | max ms | errors | statuses | mean results |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    groups = [("**all**", samples)] + [
        (kind, [s for s in samples if s.kind == kind]) for kind, _ in mix
    ]
    for name, group in groups:
        took = [s.ended - s.started for s in group]
        statuses = Counter(s.outcome for s in group)
        counted = [s.results for s in group if s.results is not None]
        lines.append(
            f"| {name} | {len(group)} | {len(group) / duration:.1f} | {fmt_ms(took, 50)} | "
            f"{fmt_ms(took, 95)} | {f'{1000 * max(took):.0f}' if took else '–'} | "
            f"{sum(s.error for s in group)} | "
            + (", ".join(f"{k}×{v}" for k, v in sorted(statuses.items())) or "–")
            + f" | {f'{sum(counted) / len(counted):.1f}' if counted else '–'} |"
        )
    return lines


def machine() -> str:
    model = ""
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"{platform.platform()}"
    )


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- main --------------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (threads)")
    parser.add_argument(
        "--duration", type=float, default=30, help="measured seconds, after the warm-up"
    )
    parser.add_argument(
        "--warmup", type=float, default=10, help="seconds of load left out of the figures"
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="TALKINGROCK_THREADS for the server's processes: threads per numeric library",
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="gunicorn workers (scripts/serve.sh runs 2)"
    )
    parser.add_argument(
        "--no-worker",
        action="store_true",
        help="do not run the django-q2 worker (manage.py qcluster) beside the web server",
    )
    parser.add_argument(
        "--memories",
        type=int,
        default=25_000,
        help="memories in the seeded household; the measured member holds about 40 %%",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the household and the mix")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help=f"seed once into {CACHE_ROOT.relative_to(ROOT)}/ and run on a copy of it",
    )
    parser.add_argument("--keep", action="store_true", help="keep this run's data directory")
    parser.add_argument("--url", help="measure the server at this URL instead of starting one")
    parser.add_argument("--token", help="with --url: a member's API token")
    parser.add_argument("--user", help="with --url: the member's username, for page loads")
    parser.add_argument("--password", help="with --url: the member's password, for page loads")
    parser.add_argument("--child-prepare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--account-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.url and not args.token:
        parser.error("--url needs --token")
    if args.clients < 1 or args.duration <= 0 or args.warmup < 0 or args.threads < 1:
        parser.error("--clients and --threads must be at least 1, --duration positive")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.child_prepare:
        return child_prepare(args)
    sys.stdout.reconfigure(line_buffering=True)  # in order with the children's output
    command = shlex.join([".venv/bin/python", "bench/load.py", *sys.argv[1:]])
    print(f"`{command}`")
    print(f"run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {machine()}")
    print(f"load average at the start: {load_average()}")

    # The queries depend only on the seed and the household's size.
    corpus = Corpus(args.seed)
    df = document_frequencies(corpus.memories(args.memories, datetime.now(UTC)))
    queries = Queries(
        keywords=[
            q for _, q, _ in make_queries(random.Random(args.seed), 400, df, args.memories, corpus)
        ],
        questions=questions(400, args.seed),
    )

    run_dir: Path | None = None
    servers: dict[str, subprocess.Popen] = {}
    try:
        if args.url:
            parsed = urllib.parse.urlsplit(args.url)
            target = Target(parsed.hostname, parsed.port or 80, args.token)
            username, password = args.user, args.password
            print(f"server: {args.url} (already running; its settings are its own)")
            if not wait_until_up(target, [], 10):
                print(f"{args.url} did not answer GET /accounts/login/ with 200 within 10 s")
                return 2
        else:
            run_dir = Path(tempfile.mkdtemp(prefix="talkingrock-load-"))
            account = prepare_data(args, run_dir)
            username, password = account["username"], account["password"]
            port = free_port()
            target = Target("127.0.0.1", port, account["token"])
            env = {
                **os.environ,
                "TALKINGROCK_DATA_DIR": str(run_dir),
                "TALKINGROCK_THREADS": str(args.threads),
                "HF_HUB_OFFLINE": "1",  # as the Makefile exports
                "TRANSFORMERS_OFFLINE": "1",
            }
            env.pop("DJANGO_SETTINGS_MODULE", None)
            web = [str(BIN / "gunicorn"), "talkingrock.wsgi:application"]
            web += ["--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)]
            web += ["--timeout", str(GUNICORN_TIMEOUT), "--access-logfile", "-"]
            if not args.no_worker:
                servers["qcluster"] = start(
                    [sys.executable, "manage.py", "qcluster"], env, run_dir / "worker.log"
                )
            servers["gunicorn"] = start(web, env, run_dir / "server.log")
            print(
                f"server: `{shlex.join(['gunicorn', *web[1:]])}`, TALKINGROCK_THREADS="
                f"{args.threads}, django-q2 worker (manage.py qcluster) "
                f"{'off' if args.no_worker else 'running'}; TALKINGROCK_LLM="
                f"{os.environ.get('TALKINGROCK_LLM', 'on (default)')}"
            )
            print(
                f"household: {account['household_memories']:,} memories; the measured member "
                f"({username}) holds {account['member_memories']:,}, "
                f"{account['member_indexed']:,} of them embedded"
            )
            if not wait_until_up(target, list(servers.values()), STARTUP_SECONDS):
                print(f"the server did not answer within {STARTUP_SECONDS} s; its log:")
                for line in log_findings([run_dir / "server.log", run_dir / "worker.log"]):
                    print(line)
                tail = (run_dir / "server.log").read_text(errors="replace").splitlines()[-30:]
                print("\n".join(f"    {line}" for line in tail))
                return 2

        mix = MIX
        if username and password:
            target.cookie = sign_in(target, username, password)
            target.act_path = find_act_path(target)
        else:
            mix = tuple((kind, share) for kind, share in MIX if kind not in PAGES)
            print("no --user/--password: page loads are left out of the mix")
        total = sum(share for _, share in mix)
        print(
            f"clients: {args.clients} threads of one process (http.client, a new loopback "
            f"connection per request); warm-up {args.warmup:g} s, then {args.duration:g} s "
            "measured; mix: " + ", ".join(f"{kind} {share / total:.0%}" for kind, share in mix)
        )

        rounds, seconds = prime(target, queries, args.workers)
        print(f"primed the server's workers in {seconds:.1f} s ({rounds} rounds)")
        load_before = load_average()
        sessions = {name: process.pid for name, process in servers.items()}
        run = Run()
        begin = time.monotonic()
        window_start = begin + args.warmup
        window_end = window_start + args.duration
        clients = [
            threading.Thread(
                target=client,
                args=(index, args.seed, mix, queries, target, window_end, run),
                daemon=True,
            )
            for index in range(args.clients)
        ]
        for thread in clients:
            thread.start()
        time.sleep(max(0.0, window_start - time.monotonic()))
        before = process_facts(sessions)
        client_cpu, machine_cpu = time.process_time(), busy_cpu_seconds()
        time.sleep(max(0.0, window_end - time.monotonic()))
        after = process_facts(sessions)
        client_cpu = time.process_time() - client_cpu
        machine_cpu = busy_cpu_seconds() - machine_cpu
        for thread in clients:
            thread.join()
        load_after = load_average()

        measured = [s for s in run.samples if window_start <= s.ended <= window_end]
        warmup = [s for s in run.samples if s.ended < window_start]
        print(
            f"\nload average before the warm-up: {load_before}; after the window: {load_after}; "
            f"{len(warmup)} requests in the warm-up ({sum(s.error for s in warmup)} errors), "
            f"{len(run.samples) - len(measured) - len(warmup)} finished after the window\n"
        )
        print("\n".join(table(measured, args.duration, mix)))
        if run.first_errors:
            print("\nfirst answer of each kind of error (warm-up included):")
            for key, detail in sorted(run.first_errors.items()):
                print(f"  {key}: {detail}")
        available = (os.cpu_count() or 1) * args.duration
        print(
            f"\nCPU time in the {args.duration:g} s window ({os.cpu_count()} cores: "
            f"{available:g} s available): the machine was busy {machine_cpu:.1f} s"
        )
        server_cpu = 0.0
        for pid, facts in sorted(after.items()):
            spent = facts.cpu_seconds - (before[pid].cpu_seconds if pid in before else 0.0)
            server_cpu += spent
            print(f"  {facts.name} (pid {pid}): {facts.threads} threads, {spent:.1f} s")
        print(f"  the clients (this process): {client_cpu:.1f} s")
        others = machine_cpu - server_cpu - client_cpu
        print(
            f"  everything else on the machine: {others:.1f} s"
            + ("" if after else " (the server's share included: it is not ours to see)")
        )
        if after and others > OTHERS_WARNING * available:
            print(
                f"WARNING: other processes took {others / available:.0%} of the machine in the "
                "window: these figures are not the app's alone; run again on a quiet machine"
            )
        if run_dir:
            for name in ("gunicorn", "qcluster"):  # first, so that their logs are complete
                if name in servers:
                    stop(servers[name])
            print("server logs:")
            for line in log_findings([run_dir / "server.log", run_dir / "worker.log"]):
                print(line)
        return 0
    finally:
        for name in ("gunicorn", "qcluster"):
            if name in servers:
                stop(servers[name])
        if run_dir and args.keep:
            log(f"kept {run_dir} (account.json holds the member's token and password)")
        elif run_dir:
            shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
