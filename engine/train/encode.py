"""Turn generated examples into token-labelled model inputs.

The input is exactly what the detector sees at inference (same prompt
format, same sequence pair); labels are 1 for answer tokens overlapping a
hallucinated span, 0 for other answer tokens and -100 (ignored) for the
prompt and special tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..detectors.windows import format_prompt
from .datagen import Example

IGNORE = -100


@dataclass
class Encoded:
    input_ids: list[int]
    token_type_ids: list[int]
    labels: list[int]
    example_label: int
    #: 1 for every answer token (labelled or not): the positions the MIL loss reads.
    answer_mask: list[int] | None = None
    token_labelled: bool = True


def token_labels(
    offsets: Sequence[tuple[int, int]],
    sequence_ids: Sequence[int | None],
    spans: Sequence[tuple[int, int, str]],
) -> list[int]:
    labels = []
    for (start, end), seq in zip(offsets, sequence_ids, strict=True):
        if seq != 1 or end <= start:
            labels.append(IGNORE)
        else:
            labels.append(int(any(start < e and s < end for s, e, _ in spans)))
    return labels


def encode_examples(
    examples: Sequence[Example], tokenizer: Any, max_length: int
) -> tuple[list[Encoded], int]:
    """Encoded examples, and how many were dropped because the context did not fit.

    A truncated context could cut away the evidence for a "faithful" token
    and teach the model to flag supported text, so such examples are dropped.
    """
    out: list[Encoded] = []
    dropped = 0
    for ex in examples:
        prompt = format_prompt(ex.passages, ex.question)
        try:
            enc = tokenizer(
                prompt,
                ex.answer,
                truncation="only_first",
                max_length=max_length,
                return_offsets_mapping=True,
                return_token_type_ids=True,
            )
        except Exception:  # the answer alone exceeds max_length (tokenizers raises plain Exception)
            dropped += 1
            continue
        seq_ids = enc.sequence_ids()
        prompt_tokens = sum(1 for s in seq_ids if s == 0)
        if len(enc["input_ids"]) >= max_length:
            full = len(tokenizer(prompt, add_special_tokens=False)["input_ids"])
            if prompt_tokens < full:
                dropped += 1
                continue
        labels = token_labels(enc["offset_mapping"], seq_ids, ex.spans)
        if all(lab == IGNORE for lab in labels):
            dropped += 1
            continue
        answer = [int(lab != IGNORE) for lab in labels]
        if not ex.token_labelled:  # only the answer as a whole is labelled
            labels = [IGNORE] * len(labels)
        out.append(
            Encoded(
                enc["input_ids"],
                enc["token_type_ids"],
                labels,
                ex.label,
                answer_mask=answer,
                token_labelled=ex.token_labelled,
            )
        )
    return out, dropped
