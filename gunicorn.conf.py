"""The web server's settings: gunicorn reads this file from the working directory, so `make run`
(scripts/serve.sh), bench/load.py and the tests that start a real server all serve the same way.
The address is given on the command line."""

# Two cores: two workers, each with its own model and database connections.
workers = 2
# A request that takes longer is killed. Nothing slow runs in a request (model calls and
# compression run in the task worker), so this only ends a request that is stuck.
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
