"""Errors come back as exceptions that carry the problem+json fields (no worker)."""

from __future__ import annotations

import pytest
from truthlens import AuthenticationError, BadRequestError, NotFoundError, TruthLens

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_wrong_key_raises_authentication_error_with_the_problem(server):
    client = TruthLens(api_key="tl_nope_nope", base_url=server.url)
    with pytest.raises(AuthenticationError) as error:
        client.verifications.get("ver_0")
    assert error.value.status == 401
    assert error.value.slug == "unauthenticated"
    assert error.value.type.startswith("https://docs.truthlens.dev/problems/")
    assert error.value.title
    assert error.value.detail


def test_a_validation_error_names_the_field(server, client):
    with pytest.raises(BadRequestError) as error:
        client.verifications.create(context=["c"], response="r", mode="turbo")
    assert error.value.slug == "validation-error"
    assert [e["field"] for e in error.value.errors] == ["mode"]
    assert "mode" in str(error.value)


def test_a_missing_verification_is_not_found(server, client):
    with pytest.raises(NotFoundError) as error:
        client.verifications.get("ver_" + "0" * 32)
    assert error.value.status == 404
    assert error.value.title
