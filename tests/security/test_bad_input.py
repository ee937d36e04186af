"""Hostile and odd request bodies: always a 4xx problem+json, never a 500."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.examples import EIFFEL
from verification.models import VerificationJob

pytestmark = pytest.mark.django_db

URL = "/v1/verifications"


def _raw(client, body: bytes, content_type: str = "application/json"):
    return client.generic("POST", URL, body, content_type=content_type)


def _assert_problem(response, status: int) -> dict:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status
    assert problem["type"].startswith("https://")
    assert "Traceback" not in response.content.decode(errors="replace")
    return problem


@pytest.mark.parametrize(
    "body",
    [b"{", b'{"response": "x",}', b"[1, 2", b"null", b"[]", b"123", b'"just a string"', b""],
)
def test_malformed_or_non_object_json_is_400(client_a, body):
    _assert_problem(_raw(client_a, body), 400)


def test_invalid_utf8_is_400(client_a):
    body = b'{"response": "caf\xe9 \xff\xfe", "context": ["x"]}'
    _assert_problem(_raw(client_a, body), 400)


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"response": ["a"]}, "response"),
        ({"response": ""}, "response"),
        ({"response": "   "}, "response"),
        ({"context": 5}, "context"),
        ({"context": [1, 2]}, "context"),
        ({"context": [{"text": "x"}]}, "context"),
        ({"query": {"a": 1}}, "query"),
        ({"threshold": "high"}, "threshold"),
        ({"threshold": 7}, "threshold"),
        ({"wait": -1}, "wait"),
        ({"wait": "soon"}, "wait"),
        ({"mode": ""}, "mode"),
        ({"metadata": "x"}, "metadata"),
        ({"metadata": [1]}, "metadata"),
        ({"passage_ids": "p1"}, "passage_ids"),
        ({"callback_url": "not a url"}, "callback_url"),
        ({"messages": "hello"}, "messages"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "messages"),
    ],
)
def test_wrong_types_and_empty_strings_are_field_errors(client_a, patch, field):
    problem = _assert_problem(client_a.post(URL, EIFFEL.request(**patch), format="json"), 400)
    assert any(e["field"].split(".")[0] == field for e in problem["errors"]), problem


@pytest.mark.parametrize(
    "patch",
    [
        {"response": "built in \x00 1950"},
        {"query": "when\x00"},
        {"context": ["The tower \x00 was built in 1889."]},
        {"context": "one \x00 passage"},
        {"model": "gpt\x00"},
        {"metadata": {"note": "a\x00b"}},
        {"metadata": {"a\x00": "b"}},
        {"passage_ids": ["p\x00"]},
        {"decision": "d\x00"},
        {"callback_url": "http://127.0.0.1/\x00"},
    ],
)
def test_null_bytes_anywhere_are_refused_not_500(client_a, patch):
    _assert_problem(client_a.post(URL, EIFFEL.request(**patch), format="json"), 400)
    assert VerificationJob.objects.count() == 0


def test_null_bytes_inside_messages_are_refused(client_a):
    messages = [
        {"role": "tool", "content": "The tower was built in 1889."},
        {"role": "user", "content": "When?", "name": "u\x00"},
        {"role": "user", "content": [{"type": "text", "text": "again\x00"}]},
        {"role": "assistant", "content": "In 1950."},
    ]
    _assert_problem(client_a.post(URL, {"messages": messages}, format="json"), 400)
    assert VerificationJob.objects.count() == 0


def test_a_10_mb_body_is_413(client_a):
    body = json.dumps(EIFFEL.request(context=["x" * (10 * 1024 * 1024)])).encode()
    _assert_problem(_raw(client_a, body), 413)


def test_10k_passages_are_refused_with_the_limit(client_a):
    problem = _assert_problem(
        client_a.post(URL, EIFFEL.request(context=["p"] * 10_000), format="json"), 400
    )
    assert problem["errors"][0]["field"] == "context"
    assert "1000" in problem["errors"][0]["message"]


@pytest.mark.parametrize("depth", [50, 5_000, 100_000])
def test_deeply_nested_messages_are_refused_not_500(client_a, depth):
    content: object = "x"
    for _ in range(depth):
        content = [content]
    body = (
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": content},
                ]
            }
        )
        if depth < 500
        else (
            '{"messages": [{"role": "assistant", "content": '
            + "[" * depth
            + '"x"'
            + "]" * depth
            + "}]}"
        )
    )
    response = _raw(client_a, body.encode())
    assert response.status_code in (400, 413), response.status_code
    _assert_problem(response, response.status_code)


def test_deeply_nested_metadata_is_refused_not_500(client_a):
    depth = 100_000
    body = '{"response": "x", "metadata": {"a": ' + "[" * depth + "1" + "]" * depth + "}}"
    response = _raw(client_a, body.encode())
    _assert_problem(response, response.status_code)
    assert response.status_code in (400, 413)
