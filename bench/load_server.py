"""The served side of bench/load.py: the data directory, the server's processes, what they did.

- ``prepare_data`` makes a data directory with the household of bench/recall_latency.py, a
  password and an API token for the measured member. Seeding and the account are done by
  ``child_prepare`` in a child process (``bench/load.py --child-prepare``) with Django set up
  there, so that this process, which runs the clients, never loads the app. With ``--reuse`` the
  seeded database is built once under var/bench-load/ and each run starts from a copy.
- ``start_servers`` starts gunicorn and the django-q2 worker as ``make run`` does, each in its own
  session so that ``stop`` finds the whole tree by its id.
- ``process_facts`` and ``busy_cpu_seconds`` read /proc for the CPU report; ``log_findings``
  counts tracebacks, locks and timeouts in the server's logs.
"""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from recall_latency import ingest, setup_django
from synthetic_household import MEMBERS
from timing import log

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().with_name("load.py")  # its --child-prepare runs child_prepare
MEMBER = MEMBERS[0]  # the largest member of the shared household (40 % of the memories)
CACHE_ROOT = ROOT / "var" / "bench-load"
BIN = Path(sys.executable).parent
GUNICORN_TIMEOUT = 120  # as scripts/serve.sh
STARTUP_SECONDS = 120


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
    command = [sys.executable, str(SCRIPT), "--child-prepare"]
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


def start_servers(servers: dict[str, subprocess.Popen], run_dir: Path, port: int, args) -> str:
    """Start ``manage.py qcluster`` (unless ``--no-worker``) and gunicorn on 127.0.0.1:port,
    into ``servers`` as they start (so that the caller stops whatever did start); returns the
    line that describes them for the report."""
    env = {
        **os.environ,
        "TALKINGROCK_DATA_DIR": str(run_dir),
        "TALKINGROCK_THREADS": str(args.threads),
        "HF_HUB_OFFLINE": "1",  # as the Makefile exports
        "TRANSFORMERS_OFFLINE": "1",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    web = [str(BIN / "gunicorn"), "household.asgi:application"]
    web += ["--bind", f"127.0.0.1:{port}", "--workers", str(args.workers)]
    web += ["--timeout", str(GUNICORN_TIMEOUT), "--access-logfile", "-"]
    if not args.no_worker:
        servers["qcluster"] = start(
            [sys.executable, "manage.py", "qcluster"], env, run_dir / "worker.log"
        )
    servers["gunicorn"] = start(web, env, run_dir / "server.log")
    return (
        f"server: `{shlex.join(['gunicorn', *web[1:]])}`, TALKINGROCK_THREADS="
        f"{args.threads}, django-q2 worker (manage.py qcluster) "
        f"{'off' if args.no_worker else 'running'}; TALKINGROCK_LLM="
        f"{os.environ.get('TALKINGROCK_LLM', 'on (default)')}"
    )


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
