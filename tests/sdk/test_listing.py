"""Listing every page, and one tenant never seeing another's verifications (no worker)."""

from __future__ import annotations

import asyncio

import pytest
from truthlens import AsyncTruthLens, NotFoundError, TruthLens

from tests.fixtures.examples import EIFFEL

pytestmark = pytest.mark.django_db(transaction=True)


def _create(client: TruthLens, count: int) -> set[str]:
    return {
        client.verifications.create(context=list(EIFFEL.context), response=f"answer {i}").id
        for i in range(count)
    }


def test_list_iterates_every_page(server, client):
    # given five jobs and pages of two
    created = _create(client, 5)
    # when
    listed = [v.id for v in client.verifications.list(limit=2)]
    # then every job comes once, newest first
    assert sorted(listed) == sorted(created)
    assert len(listed) == 5


def test_list_filters_and_async_pages_agree(server, client):
    created = _create(client, 3)

    async def collect():
        async with AsyncTruthLens(api_key=server.tenant.token, base_url=server.url) as aio:
            return [v.id async for v in aio.verifications.list(limit=1, status="queued")]

    assert sorted(asyncio.run(collect())) == sorted(created)
    assert list(client.verifications.list(status="completed")) == []


def test_a_tenant_lists_only_its_own_verifications(server, client, other_tenant):
    mine = _create(client, 2)
    with TruthLens(api_key=other_tenant.token, base_url=server.url) as other:
        theirs = _create(other, 1)
        assert {v.id for v in other.verifications.list()} == theirs
        # another tenant's job is not found, exactly like a missing one
        with pytest.raises(NotFoundError) as missing:
            other.verifications.get(next(iter(mine)))
    assert {v.id for v in client.verifications.list()} == mine
    assert missing.value.status == 404
