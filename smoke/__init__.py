"""Real-LLM smoke checks, run by ``make smoke-llm`` and never by ``make test``.

``smoke.ollama_shim`` serves a GGUF model through llama.cpp behind a loopback server that
speaks enough of Ollama's HTTP API for the official ``ollama`` client; ``smoke.check_shim``
checks that shim end to end. See smoke/README.md.
"""
