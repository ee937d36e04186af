"""Web search providers (Tavily, Serper) over httpx, with the tenant's encrypted key.

Each query is one POST; its cost is the tenant's configured price per query.
Errors come back as `WebSearchError` with the provider's words, never as a crash:
a verification whose web search failed reports the claims as not covered.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from django.conf import settings

from security.urlguard import UnsafeUrl, check_url
from verification.egress import search_client

from .models import WebSearchSettings


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    content: str


class WebSearchError(Exception):
    pass


def _base(config: WebSearchSettings) -> str:
    """The provider's endpoint; a tenant's own base URL must not point inside our network
    (checked here for a clear error, and again by the connection itself: `search_client`
    connects only to the address it has just vetted, so DNS rebinding cannot slip in)."""
    if not config.api_base:
        return settings.TRUTHLENS["WEB_SEARCH_BASES"][config.provider].rstrip("/")
    try:
        check_url(config.api_base, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
    except UnsafeUrl as exc:
        raise WebSearchError(f"the search provider URL is not allowed: {exc}") from exc
    return config.api_base.rstrip("/")


def _request(config: WebSearchSettings, query: str) -> tuple[str, dict, dict]:
    base = _base(config)
    if config.provider == "tavily":
        body = {"api_key": config.api_key, "query": query, "max_results": config.max_results}
        return f"{base}/search", {}, body
    headers = {"X-API-KEY": config.api_key}
    return f"{base}/search", headers, {"q": query, "num": config.max_results}


def _results(provider: str, data: dict) -> list[WebResult]:
    if provider == "tavily":
        items = data.get("results") or []
        return [
            WebResult(str(i.get("title", "")), str(i.get("url", "")), str(i.get("content", "")))
            for i in items
            if isinstance(i, dict) and i.get("content")
        ]
    items = data.get("organic") or []
    return [
        WebResult(str(i.get("title", "")), str(i.get("link", "")), str(i.get("snippet", "")))
        for i in items
        if isinstance(i, dict) and i.get("snippet")
    ]


def search(config: WebSearchSettings, query: str) -> list[WebResult]:
    """One provider query; `WebSearchError` on any failure."""
    url, headers, body = _request(config, query)
    try:
        response = search_client().post(
            url, json=body, headers=headers, timeout=config.timeout_seconds
        )
    except httpx.HTTPError as exc:
        raise WebSearchError(f"{config.provider} could not be reached: {exc}") from exc
    if response.status_code != 200:
        raise WebSearchError(
            f"{config.provider} answered {response.status_code}: {response.text[:200]}"
        )
    try:
        data = response.json()
    except ValueError as exc:
        raise WebSearchError(f"{config.provider} sent a reply that is not JSON") from exc
    if not isinstance(data, dict):
        raise WebSearchError(f"{config.provider} sent an unexpected reply")
    return _results(config.provider, data)[: config.max_results]
