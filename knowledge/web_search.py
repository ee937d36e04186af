"""Web search providers (Tavily, Serper) over httpx, with the tenant's encrypted key.

Each query is one POST; its cost is the tenant's configured price per query.
Errors come back as `WebSearchError` with the provider's words, never as a crash:
a verification whose web search failed reports the claims as not covered.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from django.conf import settings

from verification.webhooks.urlguard import CheckedUrl, UnsafeUrl, check_url

from .models import WebSearchSettings


@dataclass(frozen=True)
class WebResult:
    title: str
    url: str
    content: str


class WebSearchError(Exception):
    pass


def _base(config: WebSearchSettings) -> tuple[str, CheckedUrl | None]:
    """The provider's endpoint; a tenant's own base URL must not point inside our network,
    and is then called at the very address that was checked (no DNS rebinding)."""
    if not config.api_base:
        return settings.TRUTHLENS["WEB_SEARCH_BASES"][config.provider].rstrip("/"), None
    try:
        checked = check_url(config.api_base, settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])
    except UnsafeUrl as exc:
        raise WebSearchError(f"the search provider URL is not allowed: {exc}") from exc
    return config.api_base.rstrip("/"), checked


def _request(config: WebSearchSettings, query: str) -> tuple[str, dict, dict, dict]:
    base, checked = _base(config)
    url, headers, extensions = f"{base}/search", {}, {}
    if checked is not None:
        url = checked.pinned_url(url)
        headers["Host"] = checked.host_header
        extensions = checked.extensions
    if config.provider == "tavily":
        body = {"api_key": config.api_key, "query": query, "max_results": config.max_results}
        return url, headers, body, extensions
    headers["X-API-KEY"] = config.api_key
    return url, headers, {"q": query, "num": config.max_results}, extensions


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
    url, headers, body, extensions = _request(config, query)
    try:
        with httpx.Client(timeout=config.timeout_seconds, follow_redirects=False) as client:
            response = client.post(url, json=body, headers=headers, extensions=extensions)
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
