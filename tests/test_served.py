"""What only a real web server shows: the app behind gunicorn, configured as `make run` serves it
(gunicorn.conf.py), on a database file of its own. A tool call sent with Transfer-Encoding:
chunked is read whole, and a search of the longest length the page allows, in a script whose
characters take nine bytes each in a URL, is answered, not refused with a bare 414."""

from __future__ import annotations

import re
import selectors
import socket
import subprocess
import sys
import time
from urllib.parse import quote

import httpx
import pytest

from talkingrock.text import MAX_SEARCH_CHARS
from tests.support.processes import ROOT, shell

PASSWORD = "plum-cake-on-sunday"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def server(file_env):
    """gunicorn on a free loopback port; (base url, a bearer token of writer0)."""
    shell(
        file_env,
        "from django.contrib.auth import get_user_model\n"
        "u = get_user_model().objects.get(username='writer0')\n"
        f"u.set_password({PASSWORD!r}); u.save()",
    )
    token = shell(
        file_env,
        "from django.contrib.auth import get_user_model\n"
        "from talkingrock.models import ApiToken\n"
        "u = get_user_model().objects.get(username='writer0')\n"
        "print(ApiToken.issue(owner=u, name='served')[1])",
    )
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "talkingrock.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=file_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    _wait_until_serving(process)
    # The socket is bound and a worker booted: the first request waits in the listen backlog
    # while the workers load the models (gunicorn.conf.py, post_worker_init).
    httpx.get(f"{url}/accounts/login/", timeout=120).raise_for_status()
    yield url, token
    process.terminate()
    process.wait(timeout=30)


def _wait_until_serving(process, seconds: float = 60) -> None:
    """Until gunicorn says a worker has booted (its log line on stderr), or fail with its log
    if it exits or says nothing in time."""
    said: list[str] = []
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = process.stderr.readline()
            if not line:  # the server exited
                break
            said.append(line)
            if "Booting worker" in line:
                return
    pytest.fail(f"gunicorn did not start (exit {process.poll()}):\n{''.join(said)}")


def test_a_chunked_tool_call_is_read_whole(server):
    url, token = server

    def chunks():
        yield b'{"content": "Sent in chunks'
        yield b', read whole"}'

    response = httpx.post(
        f"{url}/api/tools/memory_store",
        content=chunks(),  # a generator: httpx sends it chunked, with no Content-Length
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        timeout=60,
    )

    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 200, response.text
    assert response.json()["content"] == "Sent in chunks, read whole"


def signed_in(url: str) -> httpx.Client:
    client = httpx.Client(base_url=url, timeout=60)
    page = client.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = client.post(
        "/accounts/login/",
        data={"username": "writer0", "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302, response.text
    return client


def test_the_longest_search_the_page_allows_is_answered(server):
    url, _ = server
    client = signed_in(url)
    longest = "東京" * (MAX_SEARCH_CHARS // 2)  # 500 characters, 4,500 bytes in the URL

    response = client.get(f"/memories/search/?q={quote(longest)}")

    assert response.status_code == 200
    assert "Searches are limited" not in response.text


def test_a_longer_search_is_cut_and_says_so(server):
    url, _ = server
    client = signed_in(url)

    response = client.get(f"/memories/search/?q={quote('boiler ' * 100)}")

    assert response.status_code == 200
    assert f"the first {MAX_SEARCH_CHARS} were searched" in response.text
