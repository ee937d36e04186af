"""What a mode's runner is given: the answer, its detection, the policy and the tenant's models.

Kept apart from `dispatch` (which runs a mode) so that the modes' own modules can name it
without importing the module that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..policy import PolicyDocument
from ..types import DetectionInput, DetectionResult
from .llm_types import ModelConfig
from .result import Redetect

if TYPE_CHECKING:
    from .llm import Budget, LLMClient


@dataclass(frozen=True)
class Models:
    """The tenant's models for this request; `primary` is the one that wrote the answer."""

    primary: ModelConfig | None = None
    verifiers: tuple[ModelConfig, ...] = ()
    judge: ModelConfig | None = None


@dataclass
class ModeRequest:
    """What a mode's runner gets (`runners.ModeRunner`)."""

    item: DetectionInput
    detection: DetectionResult
    policy: PolicyDocument
    redetect: Redetect
    threshold: float
    client: LLMClient | None = None
    models: Models = field(default_factory=Models)
    budget: Budget | None = None
    max_iterations: int | None = None
