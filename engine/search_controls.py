"""A request's own search controls (answers without context), within its policy's limits.

The request may narrow what the policy allows, never widen it: sources among those the
policy (its `fact_check`, or any decision's hallucination plugin) names, and at most as
many queries per source as the policy allows. Checked when the request comes in (a
clear 400), and applied again when the job is planned (`narrowed`), since the decision
that applies is only known then.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .policy import PolicyDocument


def _configs(policy: PolicyDocument) -> list[Any]:
    return [
        plugin.configuration
        for decision in policy.decisions
        for plugin in decision.plugins
        if plugin.type == "hallucination"
    ]


def allowed_sources(policy: PolicyDocument) -> set[str]:
    sources: set[str] = set(policy.fact_check.search_sources)
    for conf in _configs(policy):
        sources |= set(conf.search_sources or ())
    return sources


def allowed_queries(policy: PolicyDocument) -> int:
    limits: list[int] = [policy.fact_check.max_queries]
    limits += [conf.max_queries for conf in _configs(policy) if conf.max_queries]
    return max(limits)


def search_errors(
    policy: PolicyDocument, search: Mapping[str, Any]
) -> dict[str, dict[str, list[str]]]:
    """Field errors (`{"search": {"sources": [...]}}`) of controls beyond the policy."""
    errors: dict[str, list[str]] = {}
    allowed = allowed_sources(policy)
    beyond = [s for s in search.get("sources") or () if s not in allowed]
    if beyond:
        errors["sources"] = [
            f"the policy does not allow {', '.join(beyond)} (allowed: {', '.join(sorted(allowed))})."
        ]
    most = allowed_queries(policy)
    if search.get("max_queries") and search["max_queries"] > most:
        errors["max_queries"] = [f"the policy allows at most {most} queries per source."]
    return {"search": errors} if errors else {}


def narrowed(
    sources: tuple[str, ...], max_queries: int, search: Mapping[str, Any]
) -> tuple[tuple[str, ...], int]:
    """The plan's sources and queries per source, narrowed by the request's controls."""
    wanted = search.get("sources")
    if wanted:
        sources = tuple(s for s in sources if s in wanted)
    if search.get("max_queries"):
        max_queries = min(max_queries, int(search["max_queries"]))
    return sources, max_queries
