"""A tenant's verification policy (docs/policies.md "The policy document") and how a request resolves against it.

The document is validated with pydantic so the API, the dashboard's editor
and YAML import all reject the same bad input with the same field paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from .calibration import check_knots
from .modes import AUTO, BASE_MODE, MODE_NAMES
from .types import QUERY_TYPES


def _concrete(name: str) -> str:
    if name not in MODE_NAMES:
        raise ValueError(f"Input should be one of {', '.join(map(repr, MODE_NAMES))}")
    return name


def _mode(name: str) -> str:
    if name != AUTO and name not in MODE_NAMES:
        raise ValueError(f"Input should be {AUTO!r} or one of {', '.join(map(repr, MODE_NAMES))}")
    return name


#: A registered mode (`engine/modes.py`), or "auto" where the bandit may choose.
ConcreteMode = Annotated[
    str, AfterValidator(_concrete), Field(json_schema_extra={"enum": list(MODE_NAMES)})
]
Mode = Annotated[str, AfterValidator(_mode), Field(json_schema_extra={"enum": [*MODE_NAMES, AUTO]})]


def _all_modes() -> list[str]:
    return list(MODE_NAMES)


DEFAULT_WARNING = (
    "Warning: parts of this answer may not be supported by the provided context "
    "(hallucination score {score:.2f}): {spans}"
)

DEFAULT_UNVERIFIED_NOTE = (
    "(Unverified: this answer could not be checked against its sources in time.)"
)


#: The score at or above which an answer is flagged, and the token probability at or above
#: which a token is unsupported, unless a policy or decision says otherwise.
DEFAULT_THRESHOLD = 0.5
DEFAULT_TOKEN_THRESHOLD = 0.5
#: Query types a policy skips unless it says otherwise: nothing in them can be checked
#: against a context (the classifier names one only on decisive evidence: `query_types.py`).
DEFAULT_SKIP_QUERY_TYPES: tuple[str, ...] = ("creative", "code", "opinion")


def _default_skips() -> list[str]:
    return list(DEFAULT_SKIP_QUERY_TYPES)


#: The uncertainty band around the threshold, fitted on the development sets.
DEFAULT_UNCERTAIN_BELOW = 0.0
DEFAULT_UNCERTAIN_ABOVE = 0.1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StandardSettings(_Strict):
    max_iterations: int = Field(3, ge=1, le=10)
    convergence_threshold: float = Field(0.3, ge=0, le=1)


class PremiumSettings(_Strict):
    verification_models: list[str] = Field(default_factory=list)
    judge_model: str | None = None
    max_iterations: int = Field(1, ge=1, le=5)
    require_consensus: bool = False


class CascadePolicy(_Strict):
    """Budgeted cascade: only spans with confidence in [low, high) go to an LLM judge."""

    enabled: bool = False
    low: float = Field(0.35, ge=0, le=1)
    high: float = Field(0.75, ge=0, le=1)
    judge_model: str | None = None  # default: the tenant's default model


class Budgets(_Strict):
    per_request_usd: float | None = Field(None, ge=0)
    monthly_usd: float | None = Field(None, ge=0)


SearchSource = Literal["knowledge_base", "web"]


def _knowledge_base_only() -> list[SearchSource]:
    return ["knowledge_base"]


class FactCheck(_Strict):
    """Verifying answers that come without a context: against the tenant's knowledge
    base and/or its web search provider, claim by claim."""

    search_sources: list[SearchSource] = Field(default_factory=_knowledge_base_only)
    #: The knowledge base ("kb_...") a request without context or `knowledge_base` uses.
    knowledge_base: str | None = Field(None, max_length=40)
    max_queries: int = Field(5, ge=1, le=50)  # claims searched per answer, all sources
    #: The pass/flag threshold for verdicts against retrieved evidence (None: `threshold`).
    verify_threshold: float | None = Field(None, ge=0, le=1)


class Condition(_Strict):
    type: Literal["query_type", "domain", "keyword"]
    name: str = Field(min_length=1)


class Rules(_Strict):
    operator: Literal["AND", "OR"] = "OR"
    conditions: list[Condition] = Field(default_factory=list)


class HallucinationConfig(_Strict):
    enabled: bool = True
    mode: Mode | None = None
    threshold: float | None = Field(None, ge=0, le=1)
    max_iterations: int | None = Field(None, ge=1, le=10)
    require_disclaimer: bool = False
    # fact-checking without a context, for this decision (None: the policy's `fact_check`)
    search_sources: list[SearchSource] | None = None
    max_queries: int | None = Field(None, ge=1, le=50)
    verify_threshold: float | None = Field(None, ge=0, le=1)


class Plugin(_Strict):
    type: Literal["hallucination"]
    configuration: HallucinationConfig = Field(default_factory=HallucinationConfig)


class Decision(_Strict):
    name: str = Field(min_length=1, max_length=100)
    priority: int = 0
    rules: Rules = Field(default_factory=Rules)
    modelRefs: list[str] = Field(default_factory=list)  # the documented spelling
    plugins: list[Plugin] = Field(default_factory=list)


class Calibration(_Strict):
    """The score's monotone calibration, fitted from a dataset of the tenant's labels
    (quality app): raw score knots `x` -> calibrated `y`, applied before the threshold."""

    method: Literal["isotonic", "platt"]
    x: list[float] = Field(min_length=2, max_length=200)
    y: list[float] = Field(min_length=2, max_length=200)
    dataset: str = Field(min_length=1, max_length=100)
    dataset_version: int = Field(ge=1)
    labels: int = Field(ge=0)

    @model_validator(mode="after")
    def _monotone(self) -> Calibration:
        check_knots(self.x, self.y)
        return self


class QueryTypeCalibration(_Strict):
    """A fit for one query type, from a type with enough labels of its own (quality app):
    its threshold and, unless `method` is `threshold`, its curve (replacing the policy-wide
    `calibration` for that type). Types without one use the policy-wide fit."""

    method: Literal["threshold", "isotonic", "platt"]
    threshold: float = Field(ge=0, le=1)
    x: list[float] = Field(default_factory=list, max_length=200)
    y: list[float] = Field(default_factory=list, max_length=200)
    dataset: str = Field(min_length=1, max_length=100)
    dataset_version: int = Field(ge=1)
    labels: int = Field(ge=0)

    @model_validator(mode="after")
    def _monotone(self) -> QueryTypeCalibration:
        if self.method != "threshold":
            check_knots(self.x, self.y)
        elif self.x or self.y:
            raise ValueError("a threshold-only fit has no curve knots")
        return self


class PolicyDocument(_Strict):
    enabled: bool = True
    default_mode: Mode = BASE_MODE
    threshold: float = Field(DEFAULT_THRESHOLD, ge=0, le=1)
    token_threshold: float = Field(DEFAULT_TOKEN_THRESHOLD, ge=0, le=1)
    aggregation: Literal["calibrated", "span_max", "noisy_or"] = "calibrated"
    skip_query_types: list[str] = Field(default_factory=_default_skips)
    warning_template: str = DEFAULT_WARNING
    standard: StandardSettings = Field(default_factory=StandardSettings)
    premium: PremiumSettings = Field(default_factory=PremiumSettings)
    budgets: Budgets = Field(default_factory=Budgets)
    cascade: CascadePolicy = Field(default_factory=CascadePolicy)
    fact_check: FactCheck = Field(default_factory=FactCheck)
    cost_weight: float = Field(0.1, ge=0, le=10)
    allowed_modes: list[ConcreteMode] = Field(default_factory=_all_modes)
    decisions: list[Decision] = Field(default_factory=list)
    # Gateway: refuse (400) a chat request with no context to verify against, rather than
    # forward an answer nobody can check.
    require_context: bool = False
    # An honest third outcome: an answer scored within `uncertain_below` under or
    # `uncertain_above` over the threshold gets `verdict: "uncertain"` (0 and 0: never);
    # `on_uncertain` says whether it passes (with the verdict as the note) or is flagged.
    # The defaults are fitted on the development sets (docs/detection.md "Uncertain verdicts").
    uncertain_below: float = Field(DEFAULT_UNCERTAIN_BELOW, ge=0, le=1)
    uncertain_above: float = Field(DEFAULT_UNCERTAIN_ABOVE, ge=0, le=1)
    on_uncertain: Literal["pass", "flag"] = "pass"
    # What the detector reads of a long context: the whole context ("all"), or only the
    # sentences that align with the answer ("selected": several times faster past a few
    # thousand tokens, docs/detection.md "Evidence selection"; not the default because it cost
    # FaithBench 0.008 AUROC on a 150-row sample).
    evidence: Literal["selected", "all"] = "all"
    # Gateway: what a reply does when its verdict is not ready within
    # TRUTHLENS_GATEWAY_WAIT_SECONDS: pass the answer with `unverified_note` shown
    # (appended to prose; in `truthlens.note` and the headers always), or refuse it (503).
    on_unverified: Literal["pass_with_note", "refuse"] = "pass_with_note"
    unverified_note: str = Field(DEFAULT_UNVERIFIED_NOTE, min_length=1, max_length=500)
    # Set by adopting a calibration fitted from the tenant's labels (None: raw scores).
    calibration: Calibration | None = None
    # Per query type, where that type had enough labels of its own (quality app).
    calibration_by_query_type: dict[str, QueryTypeCalibration] = Field(default_factory=dict)

    @field_validator("calibration_by_query_type")
    @classmethod
    def _known_types(cls, fits: dict[str, QueryTypeCalibration]) -> dict[str, QueryTypeCalibration]:
        unknown = sorted(set(fits) - set(QUERY_TYPES))
        if unknown:
            raise ValueError(f"unknown query types in calibration_by_query_type: {unknown}")
        return fits

    @field_validator("decisions")
    @classmethod
    def _unique_names(cls, decisions: list[Decision]) -> list[Decision]:
        names = [d.name for d in decisions]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"decision names must be unique: {', '.join(dupes)}")
        return decisions

    @field_validator("warning_template")
    @classmethod
    def _template_renders(cls, template: str) -> str:
        try:
            template.format(score=0.5, spans="x", threshold=0.5)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                "warning_template may use only {score}, {spans} and {threshold}"
            ) from exc
        return template


@dataclass(frozen=True)
class Resolved:
    """What one request gets from the policy: decision, mode and thresholds."""

    decision: str
    enabled: bool
    mode: str
    threshold: float
    max_iterations: int
    require_disclaimer: bool
    search_sources: tuple[str, ...] = ("knowledge_base",)
    max_queries: int = 5
    verify_threshold: float | None = None


def _matches(rules: Rules, query_type: str, domain: str, text: str) -> bool:
    if not rules.conditions:
        return False
    lowered = text.lower()

    def hit(c: Condition) -> bool:
        if c.type == "query_type":
            return c.name == query_type
        if c.type == "domain":
            return c.name.lower() == domain.lower()
        return c.name.lower() in lowered

    results = [hit(c) for c in rules.conditions]
    return all(results) if rules.operator == "AND" else any(results)


def resolve(
    policy: PolicyDocument,
    query_type: str,
    domain: str = "",
    text: str = "",
    decision_name: str | None = None,
) -> Resolved:
    """Pick the decision for a request: a named one, else the highest-priority match, else default.

    Raises `KeyError` when `decision_name` names no decision of the policy.
    """
    chosen: Decision | None = None
    if decision_name:
        chosen = next((d for d in policy.decisions if d.name == decision_name), None)
        if chosen is None:
            raise KeyError(decision_name)
    else:
        for decision in sorted(policy.decisions, key=lambda d: -d.priority):
            if _matches(decision.rules, query_type, domain, text):
                chosen = decision
                break
    conf = HallucinationConfig()
    if chosen is not None:
        plugin = next((p for p in chosen.plugins if p.type == "hallucination"), None)
        if plugin is not None:
            conf = plugin.configuration
    return Resolved(
        decision=chosen.name if chosen else "default",
        enabled=policy.enabled and conf.enabled,
        mode=conf.mode or policy.default_mode,
        threshold=conf.threshold if conf.threshold is not None else policy.threshold,
        max_iterations=conf.max_iterations or policy.standard.max_iterations,
        require_disclaimer=conf.require_disclaimer,
        search_sources=tuple(
            conf.search_sources
            if conf.search_sources is not None
            else policy.fact_check.search_sources
        ),
        max_queries=conf.max_queries or policy.fact_check.max_queries,
        verify_threshold=(
            conf.verify_threshold
            if conf.verify_threshold is not None
            else policy.fact_check.verify_threshold
        ),
    )
