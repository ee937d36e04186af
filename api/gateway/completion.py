"""Verifying a whole upstream chat completion: each prose choice, in place."""

from __future__ import annotations

from engine import PolicyDocument

from .answers import checkable_text, content_text
from .grounding import Grounding
from .json_answer import JsonAnswer, response_schema
from .options import Options
from .params import wants_json
from .verdicts import Verdict, finish_jobs, note_for_late, start_jobs, unverified, verdict_of


def verify_completion(
    tenant,
    api_key,
    completion: dict,
    call,
    model: str,
    messages: list[dict],
    options: Options,
    grounding: Grounding,
    params: dict,
    policy: PolicyDocument,
) -> tuple[dict, dict[str, str]]:
    """(the completion with checked choices and its `truthlens` object, the response headers).

    Prose answers may be replaced by their mitigated text; JSON answers and
    tool-call turns come back exactly as the upstream sent them. A late verdict
    appends the policy's note to prose, or raises `VerdictLate` (policy: refuse).
    """
    choices = completion.get("choices") or []
    json_mode = wants_json(params)
    texts = [checkable_text(c.get("message") or {}, json_mode) for c in choices]
    verdicts: list[Verdict | None] = [None] * len(choices)
    if grounding.passages:
        todo = [i for i, (text, _) in enumerate(texts) if text is not None]
        answers = [texts[i][0] or "" for i in todo]
        jobs = start_jobs(tenant, api_key, grounding, answers, messages, model, options, call)
        for i, job in zip(todo, finish_jobs(jobs), strict=True):
            verdicts[i] = verdict_of(job, grounding)
    reason = "context missing" if grounding.status == "missing" else "no context"
    done = [v or unverified(texts[i][1] or reason, grounding) for i, v in enumerate(verdicts)]
    note = note_for_late(done, policy)
    schema = response_schema(params)
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
    first = done[0] if done else unverified("no choices", grounding)
    truthlens = dict(first.truthlens)
    headers = {**first.headers, "X-TruthLens-Context-Status": grounding.status}
    if len(done) > 1:
        truthlens["choices"] = [{"index": i, **v.truthlens} for i, v in enumerate(done)]
        truthlens["detected"] = any(v.truthlens.get("detected") for v in done)
        if truthlens["detected"]:
            headers["X-TruthLens-Detected"] = "true"
    if note:  # any choice late: the reply as a whole is not verified
        truthlens.update(verified=False, note=note)
        headers.update(
            {"X-TruthLens-Verified": "false", "X-TruthLens-Unverified-Reason": "timeout"}
        )
    completion.update(model=model, truthlens=truthlens)
    completion.setdefault("object", "chat.completion")
    return completion, headers
