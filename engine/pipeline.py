"""The detection pipeline: one call from a `DetectionInput` to a `DetectionResult` (docs/detection.md "Detection engine").

Order of decisions, each of which can end the work early with a reason:
query type (skipped by policy) → context present → answer language supported
→ detector tokens → spans → explanations (entailed spans dropped) → model
score → citation signal → threshold → truncation guard. The guiding rule:
anything we could not actually check is `unverifiable`, never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import get_args

from .calibration import calibrated
from .detectors.base import Detector
from .evidence_selection import Selection, select_evidence
from .explain.labels import explain_spans
from .policy import DEFAULT_SKIP_QUERY_TYPES, DEFAULT_THRESHOLD, DEFAULT_TOKEN_THRESHOLD
from .query_types import QueryClassifier, default_classifier
from .scoring import typed_checks
from .scoring.alignment import sentence_around
from .scoring.citations import CitationPolicy, check_citations
from .scoring.combiner import Combiner
from .scoring.evidence_rules import (
    contradiction_floor,
    damp_function_words,
    precise_labels,
    relevant_passages,
)
from .scoring.findings import Finding
from .scoring.novel_names import NOVEL_NAME_FLOOR, novel_names, with_reasons
from .scoring.signals import answer_signals
from .scoring.spans import merge_spans, response_score, risk_level
from .scoring.values_only import values_only
from .text.embeddings import Encoder, get_encoder
from .text.language import UNDETERMINED, answer_language
from .types import (
    QUERY_TYPES,
    Aggregation,
    Coverage,
    DetectionInput,
    DetectionResult,
    Evidence,
    Span,
    TokenPrediction,
    TokenProb,
)


@dataclass(frozen=True)
class DetectionConfig:
    """Per-request detection policy. Invalid values raise `ValueError` on construction."""

    threshold: float = DEFAULT_THRESHOLD
    token_threshold: float = DEFAULT_TOKEN_THRESHOLD
    aggregation: Aggregation = "calibrated"
    min_span_length: int = 1
    min_span_confidence: float = 0.5
    max_span_gap: int = 1
    skip_query_types: tuple[str, ...] = DEFAULT_SKIP_QUERY_TYPES
    classify_queries: bool = True
    explain: bool = True
    explain_embeddings: bool = True  # MiniLM re-ranking of evidence (lexical when False)
    citation_weight: float = 0.5  # 0 disables the citation signal
    citation_policy: CitationPolicy = field(default_factory=CitationPolicy)
    max_context_chars: int | None = 200_000  # longer contexts are cut (and reported)
    #: "selected": the detector reads the context sentences that align with the answer
    #: (`evidence_selection.py`) once the context outgrows the answer's budget; "all":
    #: the whole context, however long
    evidence: str = "all"
    typed_checks: bool = True  # normalised value, negation and antonym checks (typed_checks.py)
    #: scores in [low, high) get verdict "uncertain" unless a contradiction decided them;
    #: None: no band. `on_uncertain`: such an answer passes ("pass") or is flagged ("flag").
    uncertain_band: tuple[float, float] | None = None
    on_uncertain: str = "pass"
    #: compute the answer signals (`scoring/signals.py`) even when the detector has no
    #: combiner: for fitting one, and for diagnostics
    signals: bool = False
    #: a tenant's fitted monotone calibration of the score, as (x knots, y knots); None: raw
    calibration: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    #: per query type: (query type, threshold, calibration or None), replacing `threshold`
    #: and `calibration` for answers of that type (fits from a type's own labels); a tuple,
    #: so that the config stays hashable
    by_query_type: tuple[
        tuple[str, float, tuple[tuple[float, ...], tuple[float, ...]] | None], ...
    ] = ()

    def for_query_type(self, query_type: str) -> DetectionConfig:
        """This config for an answer of `query_type`: its own fit when it has one (the
        uncertainty band moves with the threshold), else unchanged."""
        own = next((f for f in self.by_query_type if f[0] == query_type), None)
        if own is None:
            return self
        _, threshold, calibration = own
        band = self.uncertain_band
        if band is not None:
            below, above = self.threshold - band[0], band[1] - self.threshold
            band = (max(0.0, threshold - below), min(1.0, threshold + above))
        return replace(
            self, threshold=threshold, calibration=calibration, uncertain_band=band,
            by_query_type=(),
        )  # fmt: skip

    def __post_init__(self) -> None:
        for name in ("threshold", "token_threshold", "min_span_confidence", "citation_weight"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {value!r}")
        if self.aggregation not in get_args(Aggregation):
            raise ValueError(
                f"aggregation must be one of {get_args(Aggregation)}, got {self.aggregation!r}"
            )
        if self.min_span_length < 1 or self.max_span_gap < 0:
            raise ValueError("min_span_length must be >= 1 and max_span_gap >= 0")
        unknown = set(self.skip_query_types) - set(QUERY_TYPES)
        if unknown:
            raise ValueError(f"unknown query types in skip_query_types: {sorted(unknown)}")
        if self.uncertain_band is not None:
            low, high = self.uncertain_band
            if not 0.0 <= low <= high <= 1.0:
                raise ValueError(f"uncertain_band must be 0 <= low <= high <= 1, got {low}, {high}")
        if self.evidence not in ("selected", "all"):
            raise ValueError(f"evidence must be 'selected' or 'all', got {self.evidence!r}")
        if self.on_uncertain not in ("pass", "flag"):
            raise ValueError(f"on_uncertain must be 'pass' or 'flag', got {self.on_uncertain!r}")
        if self.max_context_chars is not None and self.max_context_chars < 1:
            raise ValueError("max_context_chars must be positive or None")


def verify(
    item: DetectionInput,
    config: DetectionConfig,
    detector: Detector,
    *,
    classifier: QueryClassifier | None = None,
) -> DetectionResult:
    """Check one answer against its context; see `verify_batch`."""
    return verify_batch([item], config, detector, classifier=classifier)[0]


def verify_batch(
    items: Sequence[DetectionInput],
    config: DetectionConfig,
    detector: Detector,
    *,
    classifier: QueryClassifier | None = None,
) -> list[DetectionResult]:
    """One `DetectionResult` per item, in order, calling `detector.predict` once for all
    items that reach detection (not at all when none do).

    Status is `skipped` for query types the config skips, `unverifiable` (with a
    `reason`) when the context is empty, the answer is empty or in a language the
    detector does not support, or when a truncated input would otherwise pass;
    `verified` otherwise, with `score`, `detected` and `risk_level` set.
    """
    return verify_groups([(items, config)], detector, classifier=classifier)[0]


#: What waits for the detector: (item index, prepared input, coverage, kept passages,
#: evidence selection).
_Pending = tuple[int, DetectionInput, Coverage, list[int], Selection | None]


def verify_groups(
    groups: Sequence[tuple[Sequence[DetectionInput], DetectionConfig]],
    detector: Detector,
    *,
    classifier: QueryClassifier | None = None,
) -> list[list[DetectionResult]]:
    """`verify_batch` for several (items, config) groups at once, with ONE
    `detector.predict` call for every item of every group that reaches detection.

    A detect worker's micro-batch holds jobs of several tenants and policies; checking
    each policy's group apart would run the model once per group, and a group of one job
    gets no batching at all. Here every window of every job is scored together, so the
    detector batches them by length across jobs and policies. Each group's results are
    those `verify_batch(items, config, detector)` returns.
    """
    states = [_prepare(items, config, detector, classifier) for items, config in groups]
    flat = [(g, p) for g, (_, _, pending) in enumerate(states) for p in pending]
    if not flat:
        return [[r for r in results if r is not None] for results, _, _ in states]
    predictions = detector.predict([prepared for _, (_, prepared, *_) in flat])
    if len(predictions) != len(flat):
        raise RuntimeError(
            f"detector {detector.name!r} returned {len(predictions)} predictions "
            f"for {len(flat)} inputs"
        )
    combiner: Combiner | None = getattr(detector, "combiner", None)
    encoder: Encoder | None = None
    for (g, (i, prepared, cap, kept, selection)), pred in zip(flat, predictions, strict=True):
        items, config = groups[g]
        results, configs, _ = states[g]
        if encoder is None and config.explain and config.explain_embeddings:
            encoder = get_encoder()
        pending_result = results[i]
        assert pending_result is not None
        scored = _score(
            items[i],
            prepared,
            pred,
            cap,
            configs[i],
            pending_result,
            encoder if config.explain and config.explain_embeddings else None,
            combiner,
        )
        results[i] = _in_original_passages(_in_related_passages(scored, selection), kept)
    return [[r for r in results if r is not None] for results, _, _ in states]


def _prepare(
    items: Sequence[DetectionInput],
    config: DetectionConfig,
    detector: Detector,
    classifier: QueryClassifier | None,
) -> tuple[list[DetectionResult | None], list[DetectionConfig], list[_Pending]]:
    """Results of the items that end before the detector, each item's config, and what
    goes to the detector (`verify_batch`'s first half)."""
    if config.classify_queries:
        clf = classifier or default_classifier()
        types = clf.classify_batch([it.query for it in items])
    else:
        types = [("other", 0.0)] * len(items)

    results: list[DetectionResult | None] = [None] * len(items)
    pending: list[_Pending] = []
    configs = [config.for_query_type(qtype) for qtype, _ in types]
    for i, (item, (qtype, qconf)) in enumerate(zip(items, types, strict=True)):
        cfg = configs[i]
        base = DetectionResult(
            status="unverifiable",
            score=None,
            detected=None,
            risk_level=None,
            query_type=qtype,
            query_type_confidence=qconf,
            detector=detector.name,
            threshold=cfg.threshold,
        )
        early = _early_exit(item, qtype, cfg, base)
        if early is not None:
            results[i] = early
            continue
        lang = answer_language(item.response, item.context)
        # "und" means too little text to tell (short answers already took the
        # context's language), which is no reason to refuse the check.
        if lang != UNDETERMINED and lang not in detector.languages:
            langs = ", ".join(sorted(detector.languages))
            base.coverage = Coverage(language=lang, language_supported=False)
            base.reason = (
                f"the answer's language '{lang}' is not supported by detector "
                f"'{detector.name}' (supports: {langs})"
            )
            # Numbers, dates, times, money and units need no language model.
            results[i] = values_only(item, lang, cfg.threshold, base)
            continue
        related, kept = _related(item)
        selected, selection = _select(related, cfg)
        prepared, coverage = _cap_context(selected, cfg.max_context_chars)
        if selection is not None:  # what was given, against what the detector read
            coverage.context_chars_given = selection.chars_given
            coverage.evidence_selected = True
        coverage.language = lang
        coverage.passages_unrelated = len(item.context) - len(kept)
        coverage.checks = ["model", "values"] + (["sentences"] if cfg.typed_checks else [])
        results[i] = base
        pending.append((i, prepared, coverage, kept, selection))
    return results, configs, pending


def _early_exit(
    item: DetectionInput, qtype: str, config: DetectionConfig, base: DetectionResult
) -> DetectionResult | None:
    """A finished result for items that must not (or cannot) reach the detector."""
    if qtype in config.skip_query_types:
        return replace(
            base, status="skipped", reason=f"query type '{qtype}' is not verified by this policy"
        )
    if not any(p.strip() for p in item.context):
        return replace(base, reason="no grounding context was provided; nothing to verify against")
    if not item.response.strip():
        return replace(base, reason="the response is empty")
    return None


def _related(item: DetectionInput) -> tuple[DetectionInput, list[int]]:
    """The item with only the passages that share content with the answer or question
    (`evidence_rules.relevant_passages`), and their original indices: a passage that
    shares nothing can support nothing, and must not dilute what the others say."""
    kept = relevant_passages(item.context, item.response, item.query)
    if len(kept) == len(item.context):
        return item, kept
    ids = None if item.passage_ids is None else tuple(item.passage_ids[i] for i in kept)
    return replace(item, context=tuple(item.context[i] for i in kept), passage_ids=ids), kept


def _select(
    item: DetectionInput, config: DetectionConfig
) -> tuple[DetectionInput, Selection | None]:
    """The item with its context cut down to the evidence selected for the answer
    (`evidence_selection.py`), or unchanged (None) when the policy reads everything or
    the context already fits the answer's budget."""
    if config.evidence != "selected":
        return item, None
    selection = select_evidence(item.context, item.response, item.query)
    if selection is None:
        return item, None
    ids = (
        None
        if item.passage_ids is None
        else tuple(item.passage_ids[p.passage] for p in selection.pieces)
    )
    pieces = tuple(p.text for p in selection.pieces)
    return replace(item, context=pieces, passage_ids=ids), selection


def _in_related_passages(result: DetectionResult, selection: Selection | None) -> DetectionResult:
    """Evidence offsets mapped back from the selected pieces to the passages they came from."""
    if selection is None:
        return result

    def back(e: Evidence) -> Evidence:
        piece = selection.pieces[e.passage_index]
        return replace(
            e, passage_index=piece.passage, start=e.start + piece.start, end=e.end + piece.start
        )

    spans = [
        s if s.evidence is None else replace(s, evidence=back(s.evidence)) for s in result.spans
    ]
    return replace(result, spans=spans)


def _in_original_passages(result: DetectionResult, kept: list[int]) -> DetectionResult:
    """Evidence passage indices mapped back from the related passages to the request's."""
    if kept == list(range(len(kept))):
        return result
    spans = [
        s
        if s.evidence is None
        else replace(s, evidence=replace(s.evidence, passage_index=kept[s.evidence.passage_index]))
        for s in result.spans
    ]
    return replace(result, spans=spans)


def _cap_context(item: DetectionInput, limit: int | None) -> tuple[DetectionInput, Coverage]:
    """Keep passages in order up to `limit` characters; the cut shows in the coverage.

    Only passage ends are cut, so evidence offsets stay valid in the original passages.
    """
    given = sum(len(p) for p in item.context)
    coverage = Coverage(context_chars_given=given, context_chars_checked=given)
    if limit is None or given <= limit:
        return item, coverage
    kept: list[str] = []
    budget = limit
    for passage in item.context:
        if budget <= 0:
            break
        kept.append(passage[:budget])
        budget -= len(kept[-1])
    coverage.context_chars_checked = sum(len(p) for p in kept)
    coverage.context_truncated = True
    return replace(item, context=tuple(kept), passage_ids=item.passage_ids), coverage


def _merge_coverage(detector_cov: Coverage, cap: Coverage) -> Coverage:
    """The detector's view of the (possibly capped) input, expressed against the original."""
    cov = replace(detector_cov)
    cov.context_chars_given = max(cap.context_chars_given, cov.context_chars_given)
    if cap.context_truncated:
        cov.context_chars_checked = min(cov.context_chars_checked, cap.context_chars_checked)
        cov.context_truncated = True
    cov.language = cap.language
    cov.language_supported = True
    cov.passages_unrelated = cap.passages_unrelated
    cov.evidence_selected = cap.evidence_selected
    cov.checks = list(cap.checks)
    return cov


def _score(
    original: DetectionInput,
    prepared: DetectionInput,
    pred: TokenPrediction,
    cap: Coverage,
    config: DetectionConfig,
    base: DetectionResult,
    encoder: Encoder | None,
    combiner: Combiner | None = None,
) -> DetectionResult:
    coverage = _merge_coverage(pred.coverage, cap)
    findings: list[Finding] = []
    if config.typed_checks:
        done = pred.typed_findings  # the default detector checked before its head
        findings = (
            list(done)
            if done is not None
            else typed_checks.check(prepared.context, prepared.response, prepared.query)
        )
    if findings:
        prob = pred.response_prob
        pred = replace(
            pred,
            tokens=typed_checks.adjust(pred.tokens, findings),
            response_prob=None
            if prob is None
            else typed_checks.floor_score(prob, findings, prepared.context),
        )
    pred = replace(
        pred, tokens=damp_function_words(original.response, pred.tokens, config.token_threshold)
    )
    spans = merge_spans(
        original.response,
        pred.tokens,
        token_threshold=config.token_threshold,
        min_span_length=config.min_span_length,
        min_span_confidence=config.min_span_confidence,
        max_gap=config.max_span_gap,
    )
    tokens = pred.tokens
    if config.explain:
        explained = explain_spans(prepared, spans, encoder)
        tokens = _without_entailed(pred.tokens, spans, explained)
        spans = _with_conflicts(prepared, explained, findings)
    spans = precise_labels(spans, findings)
    model_score = response_score(
        tokens, spans, config.aggregation, config.token_threshold, pred.response_prob
    )
    signals: dict[str, float] = {}
    use_combiner = combiner is not None and config.aggregation == "calibrated"
    if use_combiner or config.signals:
        signals = answer_signals(prepared, spans, findings, pred.head_features, encoder)
    if use_combiner and pred.head_features is not None:
        assert combiner is not None
        model_score = combiner.probability(signals)
    # A contradiction decides: the score never stays below the strongest one.
    model_score = max(model_score, contradiction_floor(spans))
    # an amount unlike the context's aligned one: over the threshold, never a contradiction
    model_score = max(model_score, typed_checks.unrelated_floor(findings, prepared.context))
    if config.typed_checks and (
        novel := novel_names(original.context, original.response, original.query, spans)
    ):
        # a marked name of the answer's own weighs more than a marked function word
        spans = with_reasons(spans, novel, original.response)
        model_score = max(model_score, NOVEL_NAME_FLOOR)
    citations = check_citations(original, config.citation_policy)
    score = model_score
    if citations.applicable and config.citation_weight > 0:
        # Citations are an independent signal: combine as a Noisy-OR term.
        score = 1.0 - (1.0 - model_score) * (1.0 - config.citation_weight * citations.risk)
    uncalibrated = score
    if config.calibration is not None:
        score = calibrated(score, *config.calibration)
    detected = score >= config.threshold
    verdict = _verdict(score, detected, spans, config)
    if verdict == "uncertain":
        detected = config.on_uncertain == "flag"
    result = replace(
        base,
        status="verified",
        score=round(score, 6),
        model_score=round(model_score, 6),
        uncalibrated_score=round(uncalibrated, 6),
        detected=detected,
        verdict=verdict,
        risk_level=risk_level(score),
        spans=spans,
        tokens=list(pred.tokens),
        coverage=coverage,
        citations=citations,
        detector_tokens=pred.detector_tokens,
        signals={k: round(v, 6) for k, v in signals.items()},
    )
    cut = [
        what
        for what, flag in (
            ("context", coverage.context_truncated),
            ("answer", coverage.answer_truncated),
        )
        if flag
    ]
    if cut and not detected:
        # What we did not see may hold the hallucination: no silent pass.
        checked = (
            f"{coverage.context_chars_checked} of {coverage.context_chars_given} context chars"
        )
        result = replace(
            result,
            status="unverifiable",
            detected=None,
            verdict=None,
            risk_level=None,
            reason=f"the {' and '.join(cut)} had to be truncated ({checked} checked) "
            "and no hallucination was found in the part that was checked",
        )
    return result


def _verdict(score: float, detected: bool, spans: list[Span], config: DetectionConfig) -> str:
    """hallucinated | faithful | uncertain: a score inside the policy's band, unless a
    contradiction decided the answer (evidence, not a guess)."""
    band = config.uncertain_band
    if band is not None and band[0] <= score < band[1] and not contradiction_floor(spans):
        return "uncertain"
    return "hallucinated" if detected else "faithful"


def _with_conflicts(
    item: DetectionInput, spans: list[Span], findings: Sequence[Finding]
) -> list[Span]:
    """Spans with every typed conflict reported as a contradiction with its evidence:
    a span over it is relabelled, and a conflict no span covers is added."""
    out = list(spans)
    for f in findings:
        if f.verdict != "conflict":
            continue
        if f.evidence is None:
            # a conflict inside the answer ("its own figures give 69"): its reason explains
            # the spans over it, and there is no context sentence to point to
            if f.reason:
                out = [
                    replace(s, reason=f.reason) if s.start < f.end and f.start < s.end else s
                    for s in out
                ]
            continue
        passage = item.context[f.evidence[0]]
        lo, hi = sentence_around(passage, f.evidence[1], f.evidence[2])
        evidence = Evidence(f.evidence[0], lo, hi, passage[lo:hi])
        hits = [i for i, s in enumerate(out) if s.start < f.end and f.start < s.end]
        for i in hits:
            out[i] = replace(out[i], label="contradiction", evidence=evidence, reason=f.reason)
        if not hits:
            text = item.response[f.start : f.end]
            out.append(
                Span(
                    f.start,
                    f.end,
                    text,
                    typed_checks.CONFLICT_FLOOR,
                    "contradiction",
                    evidence,
                    f.reason,
                )  # fmt: skip
            )
    return sorted(out, key=lambda s: s.start)


def _without_entailed(
    tokens: list[TokenProb], before: list[Span], after: list[Span]
) -> list[TokenProb]:
    """Tokens minus those inside spans the explainer dropped as entailed, so Noisy-OR
    agrees with the spans that are reported."""
    kept = {(s.start, s.end) for s in after}
    dropped = [(s.start, s.end) for s in before if (s.start, s.end) not in kept]
    if not dropped:
        return tokens
    return [t for t in tokens if not any(s <= t.start and t.end <= e for s, e in dropped)]
