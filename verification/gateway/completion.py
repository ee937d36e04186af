"""Verifying a whole upstream chat completion: each prose choice, in place."""

from __future__ import annotations

from engine import LLMCall

from .answers import checkable_text, content_text
from .call import GatewayCall
from .json_answer import JsonAnswer, response_schema
from .verdicts import combined, note_for_late, unverified, verify_answers


def verify_completion(
    call: GatewayCall, completion: dict, upstream: LLMCall
) -> tuple[dict, dict[str, str]]:
    """(the completion with checked choices and its `truthlens` object, the response headers).

    Prose answers may be replaced by their mitigated text; JSON answers and
    tool-call turns come back exactly as the upstream sent them. A late verdict
    appends the policy's note to prose, or raises `VerdictLate` (policy: refuse).
    """
    grounding, json_mode = call.grounding, call.json_mode
    choices = completion.get("choices") or []
    texts = [checkable_text(c.get("message") or {}, json_mode) for c in choices]
    done = verify_answers(call, texts, upstream)
    note = note_for_late(done, call.policy)
    schema = response_schema(call.params)
    for choice, verdict, (text, _) in zip(choices, done, texts, strict=True):
        message = choice.setdefault("message", {})
        message.pop("provider_specific_fields", None)
        choice.pop("provider_specific_fields", None)
        answer = JsonAnswer.parse(content_text(message.get("content"))) if json_mode else None
        if answer is not None and verdict.job is not None:
            answer.adapt(verdict.truthlens, schema)
        if text is not None and not json_mode and not message.get("tool_calls"):
            message["content"] = verdict.content(message["content"], True)
            if verdict.late:
                message["content"] = f"{message['content']}\n\n{note}"
    truthlens = combined(done, grounding)
    first = done[0] if done else unverified("no choices", grounding)
    headers = {**first.headers, "X-TruthLens-Context-Status": grounding.status}
    if len(done) > 1 and truthlens["detected"]:
        headers["X-TruthLens-Detected"] = "true"
    if note:  # any choice late: the reply as a whole is not verified
        truthlens.update(verified=False, note=note)
        headers.update(
            {"X-TruthLens-Verified": "false", "X-TruthLens-Unverified-Reason": "timeout"}
        )
    completion.update(model=call.model, truthlens=truthlens)
    completion.setdefault("object", "chat.completion")
    return completion, headers
