"""Grounding an answer that came without a context: evidence per checkable claim.

The engine picks the answer's checkable claims (`engine.claims`); each is searched
in the job's knowledge base (or the policy's default) and, when the policy names
"web" and the tenant configured a provider, on the web for claims the knowledge
base did not cover; each source searches at most `max_queries` claims. The passages
found become the detection context; `refs` say which document passage or web
page each context passage is, so spans point back into the tenant's documents.
What retrieval could not cover is reported ("3 of 5 claims had evidence").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from engine import JobPlan, checkable_claims, narrowed
from knowledge.ids import parse_kb_id
from knowledge.metadata import matching_documents
from knowledge.models import DocumentStatus, KnowledgeBase, WebSearchSettings
from knowledge.retrieval import MIN_SIMILARITY, Hit
from knowledge.retrieval import search_many as kb_search_many
from knowledge.web_search import WebSearchError
from knowledge.web_search import search as web_search

from ..models import VerificationJob

log = logging.getLogger(__name__)

PER_CLAIM = 3  # passages kept per claim


@dataclass(frozen=True)
class SearchOptions:
    """What a request may set for its own search (`VerificationJob.search`)."""

    top_k: int = PER_CLAIM  # passages kept per claim
    min_similarity: float = MIN_SIMILARITY  # the evidence threshold
    metadata: dict[str, list[Any]] = field(default_factory=dict)  # a document filter


@dataclass
class Grounding:
    context: list[str] = field(default_factory=list)
    refs: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    web_queries: int = 0  # queries the provider answered (and charges)
    web_failed: int = 0
    web_error: str = ""  # the first failure's message
    problem: str = ""  # a source that could not be searched at all (a deleted base)
    controls: dict[str, Any] = field(default_factory=dict)  # what the search ran with
    web_cost_usd: Decimal = Decimal(0)
    web_own_key: bool = False  # the tenant's own search key: reported, never billed
    errors: list[str] = field(default_factory=list)

    @property
    def covered(self) -> int:
        return sum(1 for c in self.claims if c["evidence"])

    def summary(self) -> str:
        return f"{self.covered} of {len(self.claims)} claims had evidence"

    def failures(self) -> str:
        """What went wrong while searching, in words ("" when nothing did)."""
        return " ".join(s for s in (self.problem, self.web_failure()) if s)

    def web_failure(self) -> str:
        if not self.web_failed:
            return ""
        asked = self.web_failed + self.web_queries
        return f"Web search failed for {self.web_failed} of {asked} queries: {self.web_error}."

    def as_json(self) -> dict[str, Any]:
        return {
            "sources": self.sources,
            "claims": self.claims,
            "claims_checked": len(self.claims),
            "claims_with_evidence": self.covered,
            "summary": self.summary(),
            "passages": self.refs,
            "web": {
                "queries": self.web_queries,
                "failure": self.web_failure() or None,
                "failed": self.web_failed,
                "cost_usd": str(self.web_cost_usd),
                "own_key": self.web_own_key,
            },
            "problem": self.problem or None,
            "controls": self.controls,
            "errors": self.errors,
        }


def knowledge_base_for(job: VerificationJob, plan: JobPlan) -> KnowledgeBase | None:
    if job.knowledge_base_id:
        return job.knowledge_base
    name = plan.policy.fact_check.knowledge_base
    if not name:
        return None
    # by id ("kb_<hex>" or the UUID), else by name (a name is no UUID: Django would
    # raise ValidationError on it as a primary key)
    pk = parse_kb_id(name)
    found = KnowledgeBase.objects.filter(tenant_id=job.tenant_id, pk=pk).first() if pk else None
    return found or KnowledgeBase.objects.filter(tenant_id=job.tenant_id, name=name).first()


def _add(g: Grounding, key: tuple, text: str, ref: dict[str, Any]) -> int:
    for i, existing in enumerate(g.refs):
        if existing["key"] == list(key):
            return i
    g.context.append(text)
    g.refs.append({"key": list(key), "text": text, **ref})
    return len(g.refs) - 1


def ground(job: VerificationJob, plan: JobPlan) -> Grounding | None:
    """Evidence for `job`'s answer, or None when it has a context or no source applies."""
    if job.context:
        return None
    controls = job.search or {}
    sources, max_queries = narrowed(plan.search_sources, plan.max_queries, controls)
    kb = knowledge_base_for(job, plan) if "knowledge_base" in sources else None
    web = None
    if "web" in sources:
        web = WebSearchSettings.objects.filter(tenant_id=job.tenant_id).first()
    named = plan.policy.fact_check.knowledge_base
    missing = kb is None and "knowledge_base" in sources and bool(named)
    if kb is None and web is None and not missing:
        return None
    options = SearchOptions(
        top_k=controls.get("top_k") or PER_CLAIM,
        min_similarity=controls.get("evidence_threshold", MIN_SIMILARITY),
        metadata=controls.get("metadata") or {},
    )
    g = gather(job.tenant_id, job.response, max_queries, kb, web, options)
    g.controls = {
        "sources": list(sources),
        "max_queries": max_queries,
        "top_k": options.top_k,
        "evidence_threshold": options.min_similarity,
        "metadata": options.metadata,
    }
    if missing:
        # said plainly, not as "no grounding context was provided"
        g.problem = (
            f"The policy's default knowledge base {named!r} does not exist any more "
            "(deleted?): choose another one in the policy."
        )
        g.errors.insert(0, g.problem)
    return g


def gather(
    tenant_id: int,
    answer: str,
    max_queries: int,
    kb: KnowledgeBase | None = None,
    web: WebSearchSettings | None = None,
    options: SearchOptions | None = None,
) -> Grounding:
    """Search evidence for each checkable claim of `answer`. Each source has its own
    budget of `max_queries` searches: the knowledge base takes the first claims (in one
    batch), the web the claims still without evidence, so a knowledge base never uses
    up the web's searches. A claim no source searched is reported as skipped.
    `options`: the request's passages per claim, evidence threshold and metadata filter."""
    options = options or SearchOptions()
    g = Grounding(sources=[s for s, on in (("knowledge_base", kb), ("web", web)) if on])
    g.web_own_key = web is not None and bool(web.api_key or web.api_base)
    if kb is not None and not kb.documents.filter(status=DocumentStatus.READY).exists():
        g.errors.append(f"knowledge base {kb.public_id} has no indexed documents")
    claims = checkable_claims(answer)
    # The knowledge base first, in one batch (one encoder pass, one configuration read).
    searched = claims[:max_queries] if kb is not None else []
    found: list[list[Hit]] = []
    if kb is not None:
        documents = matching_documents(tenant_id, [kb.pk], options.metadata)
        texts = [c.text for c in searched]
        found = kb_search_many(tenant_id, [kb.pk], texts, options.top_k, documents=documents)
    web_budget = max_queries if web is not None else 0
    for n, claim in enumerate(claims):
        entry: dict[str, Any] = {
            "start": claim.start,
            "end": claim.end,
            "text": claim.text,
            "markers": list(claim.markers),
            "evidence": False,
            "passages": [],
            "searched": ["knowledge_base"] if n < len(searched) else [],
        }
        g.claims.append(entry)
        for hit in found[n] if n < len(found) else []:
            if hit.similarity < options.min_similarity:
                continue
            index = _add(
                g,
                ("passage", hit.passage_id),
                hit.text,
                {
                    "kind": "passage",
                    "knowledge_base": kb.public_id,  # type: ignore[union-attr]
                    "document": f"doc_{hit.document_id.hex}",
                    "document_name": hit.document_name,
                    "document_version": hit.version,
                    "start": hit.start,
                    "end": hit.end,
                    **({"location": hit.location} if hit.location else {}),
                },
            )
            entry["passages"].append(index)
            entry["evidence"] = True
        if web is not None and not entry["evidence"] and web_budget > 0:
            web_budget -= 1
            entry["searched"].append("web")
            _search_web(g, web, claim.text, entry, options.top_k)
        if not entry["searched"]:
            entry["skipped"] = "max_queries reached" if kb or web else "no source to search"
    for ref in g.refs:
        ref.pop("key")
    return g


def _search_web(
    g: Grounding, web: WebSearchSettings, text: str, entry: dict[str, Any], top_k: int
) -> None:
    try:
        results = web_search(web, text)
    except WebSearchError as exc:
        g.errors.append(str(exc))
        g.web_error = g.web_error or str(exc)
        g.web_failed += 1  # a failed query is not charged, so it costs nothing
        entry["web_failed"] = True
        return
    g.web_queries += 1
    g.web_cost_usd += web.price_per_query_usd
    for r in results[:top_k]:
        index = _add(g, ("web", r.url), r.content, {"kind": "web", "url": r.url, "title": r.title})
        entry["passages"].append(index)
        entry["evidence"] = True
