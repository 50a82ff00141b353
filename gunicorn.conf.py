"""The web server's settings: gunicorn reads this file from the working directory, so `make run`
(scripts/serve.sh), bench/load.py and the tests that start a real server all serve the same way.
The address is given on the command line."""

# The app: Django, with the MCP endpoint at /mcp (household/asgi.py), on gunicorn's own ASGI
# worker: the same HTTP parser and limits as its WSGI workers, with no other server to install.
# Django runs its synchronous views one at a time per worker, in one thread, as the sync workers
# did; the event loop meanwhile reads other requests.
wsgi_app = "household.asgi:application"
worker_class = "asgi"
# Two cores: two workers, each with its own model and database connections.
workers = 2
# A worker whose event loop does not answer the master for this long is killed and replaced.
# Nothing slow runs in a request (model calls and compression run in the task worker). Unlike the
# sync workers' timeout this does not end a stuck view: it runs in a thread beside the loop, and
# holds up that worker's other views until it returns.
timeout = 120
# gunicorn's ceiling: a 500-character search in any script fits, percent-encoded
# (talkingrock/text.py, MAX_SEARCH_CHARS); beyond it gunicorn answers a bare 414.
limit_request_line = 8190
accesslog = "-"
# gunicorn 27 opens a control socket at one path per user (~/.gunicorn/gunicorn.ctl): two
# servers on one machine (make run beside the tests or a benchmark) would fight over it. Unused.
control_socket_disable = True


def post_worker_init(worker):
    """Each worker loads the models before its first request (talkingrock/warmup.py)."""
    from talkingrock import warmup

    warmup.warm()
