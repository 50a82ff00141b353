"""What the web server serves (gunicorn.conf.py): MCP's streamable HTTP transport at /mcp, Django
for every other path, and the lifespan that keeps the MCP transport running.

Django's ASGI handler serves HTTP only; the lifespan is answered here, where the SDK's session
manager is started (it must run before the first /mcp request) and stopped."""

from __future__ import annotations

import os
import warnings
from contextlib import AsyncExitStack

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "talkingrock.settings")
django_application = get_asgi_application()

# After the apps are loaded: the MCP endpoint authenticates with the models.
from household.mcp_server import HttpEndpoint  # noqa: E402
from household.members import MCP_PATH  # noqa: E402

MCP_PATHS = frozenset({MCP_PATH, f"{MCP_PATH}/"})
# WhiteNoise answers with a file iterator Django reads in a thread; for our few small static
# files that is fine, and Django's warning about it would be printed once per worker.
warnings.filterwarnings(
    "ignore", message="StreamingHttpResponse must consume synchronous iterators", category=Warning
)

mcp_endpoint = HttpEndpoint()


async def application(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
    elif scope["type"] == "http" and scope["path"] in MCP_PATHS:
        await mcp_endpoint(scope, receive, send)
    elif scope["type"] == "http":
        await django_application(scope, receive, send)
    else:  # websockets: nothing here speaks them
        await send({"type": "websocket.close"})


async def _lifespan(receive, send) -> None:
    async with AsyncExitStack() as running:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await running.enter_async_context(mcp_endpoint.session_manager.run())
                except Exception as error:
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await running.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return
