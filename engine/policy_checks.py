"""Checks a policy must pass before it is published, all reported in one pass.

`PolicyDocument` validates each field on its own. A policy can still be
inconsistent as a whole (no allowed mode, a default mode it does not allow, a
decision that can never apply) or name a model no provider knows. Those checks
run on the raw input, next to pydantic's, so an editor sees every problem of a
submission at once instead of one layer per submit.

They apply when a policy is written (editor, YAML import, restore), not when a
stored one is read: a policy saved before a check existed keeps working.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .modes import AUTO, BASE_MODE, MODE_NAMES, MODES, runs_without_llm
from .policy import PolicyDocument

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    """One reason a policy is refused: where (pydantic's path) and why."""

    loc: Loc
    message: str


# litellm's `provider/model` (the model part may hold more slashes, dots, colons, @ and +:
# "bedrock/anthropic.claude-3-haiku-20240307-v1:0", "huggingface/meta-llama/Llama-3-8B").
_PROVIDER_MODEL = re.compile(r"[a-z0-9][a-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._:@+/-]*")
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]*")
MAX_MODEL_NAME = 200


@lru_cache(maxsize=1)
def known_plain_models() -> frozenset[str]:
    """Model names litellm knows without a provider prefix ("gpt-4o", "claude-3-5-haiku-…").

    Read from the price map litellm ships, without importing litellm (the web process and
    the GPU worker never import it). Empty when litellm is not installed.
    """
    spec = find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    path = Path(next(iter(spec.submodule_search_locations)))
    try:
        prices = json.loads((path / "model_prices_and_context_window_backup.json").read_text())
    except (OSError, ValueError):
        return frozenset()
    return frozenset(name for name in prices if "/" not in name and name != "sample_spec")


def model_name_problem(name: Any) -> str | None:
    """Why `name` is not a model name (litellm `provider/model`, or a plain known name)."""
    if not isinstance(name, str) or not name.strip():
        return "Enter a model name."
    if len(name) > MAX_MODEL_NAME:
        return f"A model name has at most {MAX_MODEL_NAME} characters."
    if _PROVIDER_MODEL.fullmatch(name):
        return None
    known = known_plain_models()
    if _PLAIN.fullmatch(name) and (name in known or not known):
        return None
    return (
        f"{name!r} is not a model name: write provider/model, "
        "e.g. openai/gpt-4o-mini or anthropic/claude-3-5-haiku-20241022."
    )


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _model_problems(data: Mapping[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    premium, cascade = _as_map(data.get("premium")), _as_map(data.get("cascade"))
    for i, name in enumerate(_as_list(premium.get("verification_models"))):
        if problem := model_name_problem(name):
            out.append(Problem(("premium", "verification_models", i), problem))
    for section, where in ((premium, "premium"), (cascade, "cascade")):
        judge = section.get("judge_model")
        if judge is not None and (problem := model_name_problem(judge)):
            out.append(Problem((where, "judge_model"), problem))
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        for i, name in enumerate(_as_list(_as_map(decision).get("modelRefs"))):
            if problem := model_name_problem(name):
                out.append(Problem(("decisions", d, "modelRefs", i), problem))
    return out


def _mode_problems(data: Mapping[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    allowed_raw = data.get("allowed_modes", list(MODE_NAMES))
    allowed = {m for m in _as_list(allowed_raw) if m in MODE_NAMES}
    if isinstance(allowed_raw, list) and not allowed_raw:
        out.append(Problem(("allowed_modes",), "Allow at least one mode."))
        return out  # every mode below would also be "not allowed": one message is enough
    if not allowed:
        return out  # the field itself is invalid; pydantic says why
    default = data.get("default_mode", BASE_MODE)
    if default in MODE_NAMES and default not in allowed:
        out.append(
            Problem(("default_mode",), f"The default mode {default!r} is not an allowed mode.")
        )
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        for p, plugin in enumerate(_as_list(_as_map(decision).get("plugins"))):
            mode = _as_map(_as_map(plugin).get("configuration")).get("mode")
            if mode in MODE_NAMES and mode not in allowed and mode != AUTO:
                out.append(
                    Problem(
                        ("decisions", d, "plugins", p, "configuration", "mode"),
                        f"The mode {mode!r} is not an allowed mode.",
                    )
                )
    return out


def _job_modes(data: Mapping[str, Any]) -> list[tuple[Loc, Any]]:
    """Where `data` sets the mode a job gets (the default, each decision's), and the mode."""
    found: list[tuple[Loc, Any]] = [(("default_mode",), data.get("default_mode"))]
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        for p, plugin in enumerate(_as_list(_as_map(decision).get("plugins"))):
            mode = _as_map(_as_map(plugin).get("configuration")).get("mode")
            found.append((("decisions", d, "plugins", p, "configuration", "mode"), mode))
    return found


def _requirement_problems(data: Mapping[str, Any]) -> list[Problem]:
    """A mode a job gets whose required policy field is empty (premium without any
    verification model) would only ever run as its fallback: refused, once per mode."""
    out: list[Problem] = []
    allowed = _as_list(data.get("allowed_modes", list(MODE_NAMES)))
    for mode in dict.fromkeys(m for _, m in _job_modes(data) if isinstance(m, str)):
        spec = MODES.get(mode)
        if spec is None or not spec.requires or mode not in allowed:
            continue  # a mode that is not allowed is refused as such (`_mode_problems`)
        if not _name_at(data, spec.requires):
            out.append(Problem(spec.requires, spec.requires_message))
    return out


def consistency_problems(data: Mapping[str, Any]) -> list[Problem]:
    """Cross-field problems of a raw policy document (it may be otherwise invalid)."""
    out = _mode_problems(data) + _model_problems(data) + _requirement_problems(data)
    cascade = _as_map(data.get("cascade"))
    low, high = cascade.get("low", 0.35), cascade.get("high", 0.75)
    if isinstance(low, int | float) and isinstance(high, int | float) and low >= high:
        out.append(Problem(("cascade", "high"), "The upper bound must be above the lower bound."))
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        if not isinstance(decision, Mapping):
            continue
        conditions = _as_map(decision.get("rules")).get("conditions")
        if not conditions:
            out.append(
                Problem(
                    ("decisions", d, "rules", "conditions"),
                    "A decision needs at least one condition; without one it never applies.",
                )
            )
    return out


@dataclass(frozen=True)
class Available:
    """What a tenant can run: the models it can call (its providers' and its default
    one) and whether it has an LLM at all."""

    models: frozenset[str]
    llm: bool
    #: How the tenant's knowledge bases can be named (ids and names); None: not checked.
    knowledge_bases: frozenset[str] | None = None


def _callable(name: str, available: Available) -> bool:
    # A name litellm merely knows is not enough: nothing calls it without a provider's
    # credentials (the deployment's own keys are never used for a tenant's calls).
    return name in available.models


def availability_problems(data: Mapping[str, Any], available: Available) -> list[Problem]:
    """Models the tenant cannot call, and modes it cannot run (one that needs an LLM
    when it has none): refused before they are published, not discovered by a job."""
    out = [
        Problem(
            p.loc,
            f"{_name_at(data, p.loc)!r} is not served by any of your LLM providers "
            "(add it to a provider on the LLM providers page).",
        )
        for p in _model_locations(data)
        if isinstance(_name_at(data, p.loc), str)
        and model_name_problem(_name_at(data, p.loc)) is None  # else it is said already
        and not _callable(_name_at(data, p.loc), available)
    ]
    out += _knowledge_base_problems(data, available)
    if available.llm:
        return out
    if _as_map(data.get("cascade")).get("enabled") is True:
        out.append(Problem(("cascade", "enabled"), _NO_LLM_CASCADE))

    def needs(mode: Any) -> bool:
        return isinstance(mode, str) and mode in MODES and not runs_without_llm(mode)

    # Allowing such a mode is harmless (requests asking for it get a 400, the bandit
    # skips it); making it the mode a job gets is refused.
    if needs(data.get("default_mode")):
        out.append(Problem(("default_mode",), _NO_LLM))
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        for p, plugin in enumerate(_as_list(_as_map(decision).get("plugins"))):
            if needs(_as_map(_as_map(plugin).get("configuration")).get("mode")):
                out.append(
                    Problem(("decisions", d, "plugins", p, "configuration", "mode"), _NO_LLM)
                )
    return out


def _knowledge_base_problems(data: Mapping[str, Any], available: Available) -> list[Problem]:
    """A default knowledge base that is not the tenant's (another tenant's, a deleted
    one, a typo) is refused when saved, not found out by every request without context."""
    name = _as_map(data.get("fact_check")).get("knowledge_base")
    if available.knowledge_bases is None or not isinstance(name, str) or not name:
        return []
    if name in available.knowledge_bases:
        return []
    return [
        Problem(
            ("fact_check", "knowledge_base"),
            f"{name!r} is not one of your knowledge bases (it may have been deleted): name "
            "one by its id (kb_...) or its name.",
        )
    ]


_NO_LLM = (
    "This mode needs an LLM and this tenant has none: add a provider on the LLM providers "
    "page first."
)
_NO_LLM_CASCADE = (
    "The cascade asks an LLM judge and this tenant has none: add a provider on the LLM "
    "providers page first."
)


def _model_locations(data: Mapping[str, Any]) -> list[Problem]:
    """Where `data` names models (as problems with an empty message, for their loc)."""
    locs: list[Problem] = []
    premium = _as_map(data.get("premium"))
    for i, _ in enumerate(_as_list(premium.get("verification_models"))):
        locs.append(Problem(("premium", "verification_models", i), ""))
    for where in ("premium", "cascade"):
        if _as_map(data.get(where)).get("judge_model") is not None:
            locs.append(Problem((where, "judge_model"), ""))
    for d, decision in enumerate(_as_list(data.get("decisions"))):
        for i, _ in enumerate(_as_list(_as_map(decision).get("modelRefs"))):
            locs.append(Problem(("decisions", d, "modelRefs", i), ""))
    return locs


def _name_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        data = data[part] if isinstance(part, int) else _as_map(data).get(part)
    return data


def check_policy(
    data: Mapping[str, Any], available: Available | None = None
) -> tuple[PolicyDocument | None, list[Problem]]:
    """Validate `data` for publishing: the document, or None and every problem found.
    With `available`, also what the tenant cannot run (`availability_problems`)."""
    problems = [] if isinstance(data, Mapping) else [Problem((), "A policy is a mapping.")]
    document = None
    try:
        document = PolicyDocument.model_validate(data)
    except ValidationError as exc:
        problems += [Problem(tuple(e["loc"]), e["msg"]) for e in exc.errors()]
    if isinstance(data, Mapping):
        seen = {(p.loc, p.message) for p in problems}
        problems += [p for p in consistency_problems(data) if (p.loc, p.message) not in seen]
        if available is not None:  # every problem in one pass, not layer by layer
            seen = {(p.loc, p.message) for p in problems}
            problems += [
                p for p in availability_problems(data, available) if (p.loc, p.message) not in seen
            ]
    return (None, problems) if problems else (document, [])
