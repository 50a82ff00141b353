#!/usr/bin/env bash
# Start the web server and the task worker together; Ctrl-C (or either one exiting) stops both.
set -euo pipefail
: "${HOST:=127.0.0.1}" "${PORT:=8000}" "${BIN:=.venv/bin}"

# Each child runs in its own session so that Ctrl-C reaches only this script, which then stops
# both once, cleanly (a second signal mid-shutdown makes the django-q2 cluster trip over itself).
setsid "$BIN/python" manage.py qcluster &
worker=$!
# The app (household/asgi.py: the web app and MCP at /mcp), workers, timeouts and limits are in
# gunicorn.conf.py, which gunicorn reads from here.
setsid "$BIN/gunicorn" --bind "$HOST:$PORT" &
web=$!

stop() {
    trap - INT TERM EXIT
    kill -TERM "$web" "$worker" 2>/dev/null || true
    wait "$web" "$worker" 2>/dev/null || true
    echo "Talking Rock stopped."
}
trap stop INT TERM EXIT

echo "Talking Rock is running at http://$HOST:$PORT/ (Ctrl-C stops the server and the worker)"
wait -n "$web" "$worker"
