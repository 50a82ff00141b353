#!/usr/bin/env bash
# Start the web server and the task worker together; Ctrl-C (or either one exiting) stops both.
set -euo pipefail
: "${HOST:=127.0.0.1}" "${PORT:=8000}" "${BIN:=.venv/bin}"

"$BIN/python" manage.py qcluster &
worker=$!
"$BIN/gunicorn" talkingrock.wsgi:application --bind "$HOST:$PORT" --workers 2 --timeout 120 \
    --access-logfile - &
web=$!

stop() { kill "$web" "$worker" 2>/dev/null || true; wait 2>/dev/null || true; }
trap stop INT TERM EXIT

echo "Talking Rock is running at http://$HOST:$PORT/ (Ctrl-C stops the server and the worker)"
wait -n "$web" "$worker"
