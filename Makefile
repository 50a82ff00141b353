# Talking Rock: `make run` serves the app, `make test` runs every check. Both set up .venv first.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test install migrate lint format bench chromium clean

$(BIN)/python:
	@command -v $(PYTHON) >/dev/null || { echo "Talking Rock needs Python 3.11 ($(PYTHON) not found)."; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	# torch is pinned in pyproject.toml: the CPU wheel, not gigabytes of CUDA.
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

run: migrate
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@HOST=$(HOST) PORT=$(PORT) BIN=$(BIN) bash scripts/serve.sh

chromium:
	@command -v chromium >/dev/null || { \
		echo "Installing Debian's chromium for the browser tests…"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test: install chromium lint
	$(BIN)/python -m pytest

bench: migrate
	$(BIN)/python bench/memory_query.py

clean:
	rm -rf $(VENV) .staticfiles
