"""Malformed Anthropic Messages requests: a 400 in Anthropic's error format, no upstream call.

litellm's adapter indexes `m["role"]` and calls `.get` on every block: a message without
a role was a `KeyError` inside litellm, a 500.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.fixtures.llm import configure_llm

pytestmark = pytest.mark.django_db

URL = "/v1/messages"
OK = {"role": "user", "content": "Hello"}


@pytest.fixture
def claude(client_a, tenant_a, fake_llm):
    configure_llm(tenant_a.tenant, fake_llm)
    return client_a


def _post(client, body):
    return client.generic("POST", URL, json.dumps(body).encode(), content_type="application/json")


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"messages": [{"content": "Hello"}]}, "messages.0.role"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages.0.role"),
        ({"messages": [{"role": "user"}]}, "messages.0.content"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages.0.content"),
        ({"messages": ["Hello"]}, "messages.0"),
        ({"messages": [OK, None]}, "messages.1"),
        ({"messages": []}, "messages"),
        ({"messages": {"role": "user"}}, "messages"),
        ({"messages": [{"role": "user", "content": ["hi"]}]}, "messages.0.content.0"),
        (
            {"messages": [{"role": "user", "content": [{"text": "hi"}]}]},
            "messages.0.content.0.type",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
            "messages.0.content.0.text",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result"}]}]},
            "messages.0.content.0.tool_use_id",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]},
            "messages.0.content.0.name",
        ),
        ({"system": [{"type": "image"}]}, "system.0.type"),
        ({"system": 3}, "system"),
        ({"max_tokens": "5"}, "max_tokens"),
        ({"max_tokens": True}, "max_tokens"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"stop_sequences": "END"}, "stop_sequences"),
        ({"stop_sequences": [1]}, "stop_sequences.0"),
        ({"temperature": "hot"}, "temperature"),
        ({"temperature": 3}, "temperature"),
        ({"top_k": 1.5}, "top_k"),
        ({"tools": {"name": "x"}}, "tools"),
        ({"tools": [{"description": "no name"}]}, "tools.0.name"),
        ({"tools": ["x"]}, "tools.0"),
        ({"tool_choice": "auto"}, "tool_choice"),
        ({"tool_choice": {}}, "tool_choice.type"),
        ({"tool_choice": {"type": "tool"}}, "tool_choice.name"),
        ({"metadata": "u1"}, "metadata"),
        ({"stream": "yes"}, "stream"),
        ({"model": {}}, "model"),
        ({"messages": [OK] * 1001}, "messages"),
    ],
)
def test_a_malformed_messages_request_is_an_anthropic_400(claude, fake_llm, patch, field):
    # given a tenant with a working upstream
    body = {"model": "primary", "max_tokens": 16, "messages": [OK], **patch}
    # when
    response = _post(claude, body)
    # then
    assert response.status_code == 400, response.content[:500]
    error = response.json()
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert field in error["error"]["message"]
    assert field in [e["field"] for e in error["errors"]]
    assert fake_llm.requests == []  # refused before anything reached litellm or the upstream


def test_a_non_object_body_is_an_anthropic_400(claude):
    response = _post(claude, [OK])
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_a_wrong_key_is_an_anthropic_401(db):
    response = APIClient().post(URL, {}, format="json", HTTP_X_API_KEY="tl_bad_key")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
