"""Each mode's runner, as a typed lazy entry point (the modes themselves: `engine/modes.py`).

An entry point is a small function that imports its runner's module when called, so a process
that only detects (the GPU worker, the web process) never imports litellm, which the LLM modes
need; the type checker reads the runners' types from the `TYPE_CHECKING` imports.
`tests/engine/test_modes_registry.py` checks that every mode of the registry has one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .request import ModeRequest
    from .result import MitigationResult


class ModeRunner(Protocol):
    """A mode's runner: a `ModeRequest` in, a `MitigationResult` out, or None when the
    request lacks what the mode needs (then the mode's `fallback` runs, with a warning)."""

    def __call__(self, request: ModeRequest, /) -> MitigationResult | None: ...


class RunnerEntry(Protocol):
    """A lazy entry point: imports the runner's module and returns the runner."""

    def __call__(self) -> ModeRunner: ...


def _lightweight() -> ModeRunner:
    from .lightweight import run_mode

    return run_mode


def _refine() -> ModeRunner:
    from .refine import run_mode  # loads litellm

    return run_mode


def _premium() -> ModeRunner:
    from .premium import run_mode  # loads litellm

    return run_mode


#: Mode name -> the entry point that loads its runner.
RUNNERS: dict[str, RunnerEntry] = {
    "lightweight": _lightweight,
    "standard": _refine,
    "premium": _premium,
}


def load_runner(mode: str) -> ModeRunner:
    """The runner of `mode`, its module imported now."""
    return RUNNERS[mode]()
