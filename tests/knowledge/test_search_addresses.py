"""A web search base is checked again at the connection itself (no second DNS lookup)."""

from __future__ import annotations

import pytest

from knowledge.models import WebSearchSettings
from knowledge.web_search import WebSearchError, search
from security import urlguard
from tests.security.test_provider_addresses import PUBLIC, Rebinding

pytestmark = pytest.mark.django_db


def test_web_search_connects_only_to_the_address_it_checked(
    tenant_a, fake_search, settings, monkeypatch
):
    # given a search base that resolves to a public address when it is checked...
    settings.TRUTHLENS = {**settings.TRUTHLENS, "WEBHOOK_ALLOWED_HOSTS": []}
    port = fake_search.url.rsplit(":", 1)[1]
    config = WebSearchSettings(
        tenant=tenant_a.tenant, provider="tavily", api_base=f"http://rebind.example:{port}"
    )
    # ...and to the loopback address when the HTTP client connects
    monkeypatch.setattr(urlguard.socket, "getaddrinfo", Rebinding(PUBLIC, "127.0.0.1"))
    with pytest.raises(WebSearchError, match="non-public address"):
        search(config, "eiffel tower height")
    assert fake_search.requests == []
