"""What only a real web server shows: the app as `make run` serves it (gunicorn.conf.py: Django
and MCP behind gunicorn's ASGI workers, household/asgi.py), on a database file of its own. A
tool call sent with Transfer-Encoding: chunked is read whole, and refused past the size limit;
a search of the longest length the page allows, in a script whose characters take nine bytes
each in a URL, is answered, not refused with a bare 414; sign-in works."""

from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest
from django.conf import settings

from talkingrock.text import MAX_SEARCH_CHARS
from tests.support import processes
from tests.support.processes import shell
from tests.support.server import served

PASSWORD = "plum-cake-on-sunday"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The served app on a free loopback port; (base url, a bearer token of writer0)."""
    env = processes.file_env(tmp_path_factory.mktemp("served"))
    shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        "u = get_user_model().objects.get(username='writer0')\n"
        f"u.set_password({PASSWORD!r}); u.save()",
    )
    token = shell(
        env,
        "from django.contrib.auth import get_user_model\n"
        "from talkingrock.models import ApiToken\n"
        "u = get_user_model().objects.get(username='writer0')\n"
        "print(ApiToken.issue(owner=u, name='served')[1])",
    )
    with served(env, tmp_path_factory.mktemp("served-log") / "gunicorn.log") as url:
        yield url, token


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


def test_a_chunked_tool_call_past_the_size_limit_is_refused(server):
    url, token = server
    piece = b"x" * 65_536
    pieces = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // len(piece) + 1

    def chunks():
        yield b'{"content": "'
        for _ in range(pieces):
            yield piece
        yield b'"}'

    response = httpx.post(
        f"{url}/api/tools/memory_store",
        content=chunks(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        timeout=60,
    )

    assert response.status_code == 400
    assert response.json() == {"error": "The body is too large for a tool call."}


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
