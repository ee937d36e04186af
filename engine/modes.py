"""The mitigation modes, in one registry (docs/architecture.md "Registries"; what each mode
does: docs/policies.md "Policies and mitigation modes").

A new mode is one `ModeSpec` here plus its runner in `engine/mitigation/` and that runner's
entry point in `engine/mitigation/runners.py`: the policy schema, the API's and the gateway's
mode checks, the dashboard's policy editor, routing (which jobs go to the LLM queue) and billing
all read this table. The table names no runner itself: the runners' modules import the policy,
which reads this table, so the entry points live beside the runners and this module stays at the
bottom of the engine's imports.
"""

from __future__ import annotations

from dataclasses import dataclass

AUTO = "auto"  # not a mode: "let the bandit choose among the allowed modes"


@dataclass(frozen=True)
class ModeSpec:
    name: str
    #: How the dashboard names it ("Lightweight"), before the word "mode".
    label: str
    summary: str
    #: It rewrites a flagged answer with an LLM, so such jobs go to the mitigate
    #: queue when the tenant has an LLM provider.
    needs_llm: bool
    fallback: str | None = None
    fallback_warning: str = ""
    #: Without any LLM, the detect stage can still finish the job with the no-LLM
    #: repair instead of a warning.
    repairs_without_llm: bool = False
    #: The policy field (path) that must not be empty for the mode to run; a policy
    #: making it a job's mode without it is refused (`policy_checks`).
    requires: tuple[str, ...] = ()
    requires_message: str = ""
    #: False for a mode that leaves the answer as it is and adds a warning: the gateway
    #: appends that warning to the returned text, and there are no rewriting rounds.
    rewrites_answer: bool = True
    #: The kind of the `MitigationStep` that records the mode's edits: "judge" for a mode
    #: where other models answer and a judge decides, else "repair".
    change_step: str = "repair"
    #: What it does, in a few words: the legend of its settings in the policy editor.
    gist: str = ""

    @property
    def price_key(self) -> str:
        """The key of `Plan.price_per_verification` this mode is billed at."""
        return self.name


MODES: dict[str, ModeSpec] = {
    spec.name: spec
    for spec in (
        ModeSpec(
            "lightweight",
            "Lightweight",
            "Warn: the answer unchanged, with a warning naming its unsupported spans.",
            needs_llm=False,
            rewrites_answer=False,
        ),
        ModeSpec(
            "standard",
            "Standard",
            "Self-refine: the same LLM rewrites the answer until it passes detection.",
            needs_llm=True,
            repairs_without_llm=True,
            gist="the answer is refined",
        ),
        ModeSpec(
            "premium",
            "Premium",
            "Cross-verification: several models check the claims and a judge decides.",
            needs_llm=True,
            fallback="standard",
            fallback_warning="premium needs verification and judge models; fell back to standard",
            requires=("premium", "verification_models"),
            requires_message="Premium mode needs at least one verification model.",
            change_step="judge",
            gist="other models cross-check",
        ),
    )
}

MODE_NAMES: tuple[str, ...] = tuple(MODES)

#: The mode every tenant can run, LLM or not: a policy's default mode, the mode a job runs
#: as when the mode it was given cannot run without an LLM, and the billing line of a job
#: whose fixing mode never ran.
BASE_MODE = "lightweight"
if MODES[BASE_MODE].needs_llm:  # pragma: no cover - a registry edit that breaks the promise
    raise AssertionError(f"BASE_MODE {BASE_MODE!r} must need no LLM")


def runs_without_llm(name: str) -> bool:
    """Can mode `name` do its job for a tenant with no LLM (itself, or its no-LLM repair)?"""
    spec = mode_spec(name)
    return not spec.needs_llm or spec.repairs_without_llm


def rewrites_answer(name: str) -> bool:
    """Does mode `name` return a rewritten answer (False: the answer plus a warning)?
    True for anything that is not a registered mode (a repair, a passthrough)."""
    spec = MODES.get(name)
    return spec is None or spec.rewrites_answer


def change_step(name: str) -> str:
    """The kind of step ("judge" or "repair") that records the edits of result mode `name`."""
    spec = MODES.get(name)
    return spec.change_step if spec is not None else "repair"


def mode_spec(name: str) -> ModeSpec:
    """The registered mode `name`; ValueError for anything else (including "auto")."""
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(
            f"unknown mode {name!r}: expected one of {', '.join(MODE_NAMES)}"
        ) from None
