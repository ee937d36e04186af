"""The context a request is verified against: explicit if given, else found in the messages."""

from __future__ import annotations

from rest_framework.exceptions import ValidationError

from engine import PolicyDocument, find_context
from verification.gateway import Grounding, Options


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
