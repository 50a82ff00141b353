"""The LLM layer against the real ``ollama`` client and a scripted server."""

from __future__ import annotations

import pytest

from talkingrock import llm
from tests.support.ollama_stub import HTTP, Timeout, ToolCalls

SCHEMA = {
    "type": "object",
    "properties": {
        "names": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 20}}
    },
    "required": ["names"],
    "additionalProperties": False,
}


def ask():
    return llm.structured(system="Extract names.", prompt="Ana met Bo.", schema=SCHEMA)


def test_a_valid_answer_is_returned_with_how_it_was_obtained(ollama):
    ollama.answer({"names": ["Ana", "Bo"]})
    result = ask()
    assert result.value == {"names": ["Ana", "Bo"]}
    assert (result.model, result.attempts) == ("llama3.2:3b", 1)
    request = ollama.chats[0]
    assert request["format"] == SCHEMA  # the schema travels to the server as `format`
    assert request["options"]["temperature"] == 0.0
    assert request["messages"][0] == {"role": "system", "content": "Extract names."}


@pytest.mark.parametrize(
    "broken",
    [
        '{"names": ["Ana", ',  # truncated JSON
        '{"names": "Ana"}',  # wrong type
        '{"names": ["a", "b", "c", "d"]}',  # over maxItems
        '{"names": [], "extra": 1}',  # unexpected key
        "Sure! Here are the names: Ana, Bo",  # prose
    ],
)
def test_an_invalid_answer_is_retried_once_with_the_error_fed_back(ollama, broken):
    ollama.answer(broken, {"names": ["Ana"]})
    result = ask()
    assert result.value == {"names": ["Ana"]} and result.attempts == 2
    retry = ollama.chats[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": broken}
    assert retry[-1]["content"].startswith("That answer was not valid:")


def test_a_raw_newline_inside_a_string_is_accepted_first_time(ollama):
    # llama.cpp's grammar lets control characters into strings; strict JSON would refuse them
    ollama.answer('{"names": ["Ana\nMaria"]}')
    result = ask()
    assert result.value == {"names": ["Ana\nMaria"]} and result.attempts == 1


def test_two_invalid_answers_give_up_with_the_reason(ollama):
    ollama.answer("not json", '{"names": 5}')
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "invalid"
    assert "$.names must be of type array" in caught.value.message


def test_a_timeout_becomes_our_error(ollama):
    ollama.answer(Timeout())
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "timeout"


@pytest.mark.parametrize("status", [404, 500])
def test_http_errors_become_our_error(ollama, status):
    ollama.answer(HTTP(status, "model 'llama3.2:3b' not found" if status == 404 else "boom"))
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "http" and str(status) in caught.value.message
    if status == 404:
        assert "ollama pull llama3.2:3b" in caught.value.message


def test_a_missing_model_is_a_404_from_the_server(ollama, settings):
    settings.TALKINGROCK_LLM = {**settings.TALKINGROCK_LLM, "model": "nope:1b"}
    with pytest.raises(llm.LLMError, match="nope:1b"):
        ask()


def test_a_server_that_is_down_becomes_our_error(ollama):
    ollama.down = True
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "unreachable"


def test_nothing_listening_on_the_port_is_unreachable(settings):
    # The real client and a real socket: the builtin ConnectionError the client raises.
    settings.TALKINGROCK_LLM = {
        **settings.TALKINGROCK_LLM,
        "enabled": True,
        "host": "http://127.0.0.1:9",
    }
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "unreachable"


def test_switched_off_never_calls(ollama, settings):
    settings.TALKINGROCK_LLM = {**settings.TALKINGROCK_LLM, "enabled": False}
    with pytest.raises(llm.LLMError) as caught:
        ask()
    assert caught.value.kind == "disabled" and ollama.requests == []


def test_chat_returns_tool_calls(ollama):
    ollama.answer(ToolCalls([("memory_query", {"query": "dentist"})]), "Tuesday at 3.")
    tools = [{"name": "memory_query", "description": "search", "parameters": {"type": "object"}}]
    first = llm.chat([{"role": "user", "content": "When is the dentist?"}], tools=tools)
    assert first.tool_calls[0].name == "memory_query"
    assert first.tool_calls[0].arguments == {"query": "dentist"}
    assert ollama.chats[0]["tools"][0]["function"]["name"] == "memory_query"
    second = llm.chat([{"role": "user", "content": "When is the dentist?"}])
    assert second.content == "Tuesday at 3." and second.tool_calls == []


def test_status_says_which_engine_answers(ollama):
    state = llm.status(refresh=True)
    assert (state.reachable, state.model_pulled, state.engine) == (True, True, "ollama")
    ollama.models = ["other:1b"]
    assert llm.status().engine == "ollama"  # cached until the next check
    state = llm.status(refresh=True)
    assert (state.reachable, state.model_pulled, state.engine) == (True, False, "offline")
    assert "ollama pull llama3.2:3b" in state.detail
    ollama.down = True
    state = llm.status(refresh=True)
    assert (state.reachable, state.engine) == (False, "offline")


def test_status_when_switched_off(settings):
    state = llm.status(refresh=True)
    assert state.engine == "offline" and "Switched off" in state.detail
