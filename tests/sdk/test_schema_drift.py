"""The SDK's models match the OpenAPI schema the live server publishes at /v1/openapi.json.

For each model and its component: the same field names; a field the schema requires is
required by the model (a response) or has no default (a request); and the JSON types, enum
values and date-time formats agree. A field added, removed, renamed or retyped on either
side fails here.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from truthlens import models

RESPONSES = [
    models.Verification,
    models.Span,
    models.Evidence,
    models.DocumentLocation,
    models.Usage,
    models.KnowledgeBase,
    models.Document,
    models.UsageReport,
    models.UsageByMode,
]
REQUESTS = [models.VerificationRequest, models.FeedbackRequest, models.Message]


@pytest.fixture(scope="module")
def schema(live_server) -> dict[str, Any]:
    """Fetched once: building the schema takes seconds."""
    response = httpx.get(f"{live_server.url}/v1/openapi.json", timeout=120)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/")
    return response.json()


def _resolve(node: dict, defs: dict, prefix: str) -> dict:
    while "$ref" in node:
        node = defs[node["$ref"].removeprefix(prefix)]
    return node


def _shape(node: dict, defs: dict, prefix: str) -> tuple[frozenset, frozenset, str]:
    """(JSON types, "null" included; enum values; format) of one property."""
    types: set[str] = set()
    enum: set[Any] = set()
    fmt = ""
    if node.get("nullable"):
        types.add("null")
    branches = node.get("anyOf") or node.get("oneOf") or node.get("allOf")
    if branches:
        for branch in branches:
            t, e, f = _shape(_resolve(branch, defs, prefix), defs, prefix)
            types |= t
            enum |= e
            fmt = fmt or f
        return frozenset(types), frozenset(enum), fmt
    node = _resolve(node, defs, prefix)
    if "enum" in node:
        enum |= {v for v in node["enum"] if v not in ("", None)}
        types.add(node.get("type", "string"))
    elif "type" in node:
        types.add(node["type"])
    elif "properties" in node:
        types.add("object")
    else:
        types.add("any")
    if node.get("format") == "date-time":
        fmt = "date-time"
    return frozenset(types), frozenset(enum), fmt


def _model_fields(model: type[BaseModel]) -> dict[str, tuple]:
    js = model.model_json_schema(mode="validation")
    defs = js.get("$defs", {})
    return {name: _shape(prop, defs, "#/$defs/") for name, prop in js.get("properties", {}).items()}


def _component_fields(schema: dict, name: str) -> dict[str, tuple]:
    components = schema["components"]["schemas"]
    props = components[name].get("properties", {})
    return {
        field: _shape(prop, components, "#/components/schemas/") for field, prop in props.items()
    }


def _required(schema: dict, name: str) -> set[str]:
    return set(schema["components"]["schemas"][name].get("required", []))


def _compare(model: type[BaseModel], schema: dict, response: bool) -> list[str]:
    name = model.__component__
    ours, theirs = _model_fields(model), _component_fields(schema, name)
    problems = [f"{name}.{f}: only in the schema" for f in theirs.keys() - ours.keys()]
    problems += [f"{name}.{f}: only in the SDK" for f in ours.keys() - theirs.keys()]
    required = _required(schema, name)
    for field in ours.keys() & theirs.keys():
        model_required = model.model_fields[field].is_required()
        if response and model_required != (field in required):
            problems.append(f"{name}.{field}: required {field in required} in the schema")
        if not response and field in required and not model_required:
            problems.append(f"{name}.{field}: required by the schema, optional in the SDK")
        (our_types, our_enum, our_fmt), (their_types, their_enum, their_fmt) = (
            ours[field],
            theirs[field],
        )
        # an optional field may be None in the SDK ("not sent" / "not present")
        optional = not model.model_fields[field].is_required()
        our_types_cmp = (
            our_types - {"null"} if optional and "null" not in their_types else our_types
        )
        if "any" not in their_types and our_types_cmp != their_types:
            problems.append(f"{name}.{field}: SDK {set(our_types)} vs schema {set(their_types)}")
        if "any" in their_types and our_types != frozenset({"any"}):
            problems.append(f"{name}.{field}: the schema says any JSON, the SDK {set(our_types)}")
        if our_enum != their_enum and our_enum:
            problems.append(f"{name}.{field}: values {set(our_enum)} vs {set(their_enum)}")
        if our_fmt != their_fmt:
            problems.append(f"{name}.{field}: format {our_fmt!r} vs {their_fmt!r}")
    return problems


@pytest.mark.parametrize("model", RESPONSES, ids=lambda m: m.__name__)
def test_response_model_matches_its_component(schema, model):
    assert _compare(model, schema, response=True) == []


@pytest.mark.parametrize("model", REQUESTS, ids=lambda m: m.__name__)
def test_request_model_matches_its_component(schema, model):
    assert _compare(model, schema, response=False) == []


def test_the_check_sees_a_drift(schema):
    """A field the server no longer sends, and a type changed, are both reported."""

    class Drifted(models.Usage):
        __component__ = "Usage"
        removed_upstream: int
        llm_calls: str  # the schema says integer

    problems = _compare(Drifted, schema, response=True)
    assert "Usage.removed_upstream: only in the SDK" in problems
    assert any(p.startswith("Usage.llm_calls: SDK") for p in problems)
