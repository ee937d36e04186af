"""The context a request is verified against: explicit if given, else found in the messages."""

from __future__ import annotations

from dataclasses import dataclass

from rest_framework.exceptions import ValidationError

from engine import PolicyDocument, find_context

from .options import Options


@dataclass(frozen=True)
class Grounding:
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


def grounding_for(messages: list[dict], options: Options, policy: PolicyDocument) -> Grounding:
    """Explicit context wins; otherwise what `find_context` finds. With the policy's
    `require_context`, a request with neither is refused (a 400, before any upstream call)."""
    found = find_context(messages)
    if options.context:
        return Grounding(options.context, found.query or "", "explicit", ("explicit",))
    grounding = Grounding(found.passages, found.query or "", found.status, found.sources)
    if policy.require_context and not found.found:
        why = (
            "the conversation asks for grounded answers but no context was found in it"
            if found.status == "missing"
            else "the conversation carries no grounding context"
        )
        raise ValidationError(
            {
                "truthlens.context": [
                    f"this tenant's policy requires context: {why}. Send it explicitly "
                    "(extra_body truthlens.context or X-TruthLens-Context), in role=tool "
                    "messages, or as tagged or headed documents."
                ]
            }
        )
    return grounding
