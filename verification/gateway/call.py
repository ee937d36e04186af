"""`GatewayCall`: one parsed gateway request, whichever API it came in through.

The HTTP adapters (`api/gateway/`: OpenAI's chat completions, Anthropic's
messages) parse and check a request into a `GatewayCall`; `run_call`
(`verification/gateway/action.py`) runs it. Nothing here knows about HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import ModelConfig, PolicyDocument
from tenants.models import ApiKey, Tenant


@dataclass(frozen=True)
class Options:
    """The client's explicit TruthLens options (`truthlens` body field or headers)."""

    context: tuple[str, ...] = ()
    mode: str = "auto"
    decision: str = ""
    threshold: float | None = None


@dataclass(frozen=True)
class Grounding:
    """The context the answers are verified against: explicit, found in the messages, or none."""

    passages: tuple[str, ...]
    query: str
    status: str  # explicit | found | missing | none
    sources: tuple[str, ...] = ()

    def describe(self) -> dict:
        return {
            "status": self.status,
            "sources": sorted(set(self.sources)),
            "passages": len(self.passages),
        }

    @property
    def reason(self) -> str:
        """Why nothing was verified, when there is no context."""
        return "context missing" if self.status == "missing" else "no context"


@dataclass(frozen=True)
class GatewayCall:
    """The request to forward and verify: who calls, which upstream, what, against what."""

    tenant: Tenant
    api_key: ApiKey | None
    config: ModelConfig  # the upstream model and its provider's settings
    policy: PolicyDocument
    options: Options
    messages: list[dict[str, Any]]  # OpenAI chat messages, forwarded as sent
    grounding: Grounding
    params: dict[str, Any] = field(default_factory=dict)  # litellm keyword parameters
    extra_body: dict[str, Any] = field(default_factory=dict)  # the upstream body's extras
    stream: bool = False

    @property
    def model(self) -> str:
        return self.config.model

    @property
    def json_mode(self) -> bool:
        """The client asked for a JSON answer (`response_format` json_object/json_schema)."""
        fmt = self.params.get("response_format")
        return isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema")
