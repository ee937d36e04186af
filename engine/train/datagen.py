"""Training data for the embedded detector, generated from real contexts.

Only the TRAINING sets of `shared/data` are read (`begin/dev.jsonl`,
`faithdial_audit/test.jsonl`, see `shared/data/README.md`); the evaluation
sets are never opened here. Their knowledge snippets are the contexts, and:

* faithful answers: sentences extracted from the context, alone or
  recombined, sometimes lightly paraphrased (conversational prefix, clause
  cut) -- plus the sets' own label-0 responses (human judged attributable);
* hallucinated answers: a faithful answer with 1-2 FactCC-style
  perturbations (`perturb.py`), each leaving an exact character span.

Some examples get distractor passages from other contexts so the model
learns that support may sit in any passage. Train/dev are split by a hash
of the source id (the first row id of each distinct context), so no context
is shared between the two; the output is a pure function of the seed.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..detectors.windows import sentence_bounds
from .perturb import _CAPITALISED, perturb, shift_spans

TRAINING_FILES = ("begin/dev.jsonl", "faithdial_audit/test.jsonl")
MAX_CONTEXT_CHARS = 1100  # keeps prompt + answer inside the training max_length
_PREFIXES = ["Yes, ", "Well, ", "I read that ", "Did you know that ", "I believe ", "Sure! "]


@dataclass
class Example:
    passages: list[str]
    question: str | None
    answer: str
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    source_id: str = ""
    kind: str = "faithful"
    #: Set for examples labelled only as a whole (entailment pairs, HaluEval):
    #: their answer tokens are not labelled, only the pair head learns from them.
    response_label: int | None = None

    @property
    def label(self) -> int:
        if self.response_label is not None:
            return self.response_label
        return int(bool(self.spans))

    @property
    def token_labelled(self) -> bool:
        return self.response_label is None


@dataclass
class Source:
    """One distinct context with the rows that use it."""

    source_id: str
    context: str
    questions: list[str]
    faithful: list[str]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_sources(data_dir: Path, files: Iterable[str] = TRAINING_FILES) -> list[Source]:
    by_context: dict[str, Source] = {}
    for name in files:
        with open(data_dir / name, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                context = row["context"].strip()
                if not context:
                    continue
                src = by_context.setdefault(context, Source(row["id"], context, [], []))
                if row.get("question"):
                    src.questions.append(row["question"])
                if row["label"] == 0 and row["answer"].strip():
                    src.faithful.append(row["answer"].strip())
    return sorted(by_context.values(), key=lambda s: s.source_id)


def is_dev(source_id: str, dev_percent: int) -> bool:
    digest = hashlib.sha256(source_id.encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < dev_percent


def training_sentences(text: str) -> list[str]:
    out = []
    for s, e in sentence_bounds(text):
        sent = text[s:e].strip()
        if 4 <= len(sent.split()) <= 60:
            out.append(sent)
    return out


def _clip_context(context: str, keep: list[str], rng: random.Random) -> str:
    """A contiguous run of whole sentences around `keep`, at most MAX_CONTEXT_CHARS long."""
    if len(context) <= MAX_CONTEXT_CHARS:
        return context
    bounds = sentence_bounds(context)
    anchor = context.find(keep[0]) if keep else rng.randrange(len(context))
    idx = next((i for i, (s, e) in enumerate(bounds) if s <= anchor < e + 1), 0)
    lo = hi = idx
    while True:
        grown = False
        for cand in (lo - 1, hi + 1) if rng.random() < 0.5 else (hi + 1, lo - 1):
            if 0 <= cand < len(bounds):
                s = bounds[min(lo, cand)][0]
                e = bounds[max(hi, cand)][1]
                if e - s <= MAX_CONTEXT_CHARS:
                    lo, hi = min(lo, cand), max(hi, cand)
                    grown = True
        if not grown:
            break
    clipped = context[bounds[lo][0] : bounds[hi][1]]
    return clipped if all(k in clipped for k in keep) else context[:MAX_CONTEXT_CHARS]


def _paraphrase(text: str, rng: random.Random) -> str:
    """Light, meaning-preserving rewrites: a chatty prefix or a cut after a clause."""
    roll = rng.random()
    if roll < 0.3:
        prefix = rng.choice(_PREFIXES)
        return (
            prefix + text[:1].lower() + text[1:]
            if text[:1].isupper() and text[1:2].islower()
            else prefix + text
        )
    if roll < 0.45 and ", " in text:
        head = text.split(", ")[0]
        if len(head.split()) >= 5:
            return head + "."
    return text


class Generator:
    """Builds examples from sources; one `random.Random` per source keeps it deterministic."""

    def __init__(self, sources: list[Source], seed: int) -> None:
        self.sources = sources
        self.seed = seed
        self.sentences = {s.source_id: training_sentences(s.context) for s in sources}
        self.entities = {
            s.source_id: sorted({m.group() for m in _CAPITALISED.finditer(s.context)})
            for s in sources
        }

    def _rng(self, source_id: str) -> random.Random:
        return random.Random(f"{self.seed}:{source_id}")

    def _other(self, rng: random.Random, source: Source) -> Source:
        while True:
            other = rng.choice(self.sources)
            if other.source_id != source.source_id or len(self.sources) == 1:
                return other

    def _passages(self, rng: random.Random, source: Source, context: str) -> list[str]:
        passages = [context]
        if rng.random() < 0.3:
            for _ in range(rng.choice([1, 1, 2])):
                other = self._other(rng, source)
                passages.append(_clip_context(other.context, [], rng)[: MAX_CONTEXT_CHARS // 2])
            rng.shuffle(passages)
        return passages

    def _hallucinate(self, rng: random.Random, source: Source, answer: str) -> Example | None:
        other = self._other(rng, source)
        own = [e for e in self.entities[source.source_id] if e not in answer]
        pool = (
            own + self.entities[other.source_id]
            if rng.random() < 0.5
            else self.entities[other.source_id]
        )
        spans: list[tuple[int, int, str]] = []
        text = answer
        for _ in range(rng.choice([1, 1, 1, 2])):
            edit = perturb(text, rng, pool, self.sentences[other.source_id])
            if edit is None:
                break
            spans = shift_spans(spans, edit, len(text))
            text = edit.text
        if not spans:
            return None
        kinds = "+".join(sorted({k for _, _, k in spans}))
        return Example([], None, text, spans, source.source_id, kinds)

    def for_source(self, source: Source) -> list[Example]:
        rng = self._rng(source.source_id)
        sents = self.sentences[source.source_id]
        question = rng.choice(source.questions) if source.questions and rng.random() < 0.8 else None
        examples: list[Example] = []
        if sents:
            for _ in range(2):
                k = min(len(sents), rng.choice([1, 1, 2, 2, 3, 4]))
                start = rng.randrange(len(sents) - k + 1)
                picked = sents[start : start + k] if rng.random() < 0.6 else rng.sample(sents, k)
                answer = " ".join(picked)
                context = _clip_context(source.context, picked, rng)
                if not all(p in context for p in picked):
                    continue
                faithful = _paraphrase(answer, rng)
                passages = self._passages(rng, source, context)
                examples.append(Example(passages, question, faithful, [], source.source_id))
                fake = self._hallucinate(rng, source, faithful)
                if fake is not None:
                    fake.passages, fake.question = passages, question
                    examples.append(fake)
        if len(source.context) <= MAX_CONTEXT_CHARS:
            for answer in source.faithful[:2]:
                passages = self._passages(rng, source, source.context)
                examples.append(Example(passages, question, answer, [], source.source_id, "real"))
                fake = self._hallucinate(rng, source, answer)
                if fake is not None and rng.random() < 0.5:
                    fake.passages, fake.question = passages, question
                    examples.append(fake)
        return examples


def generate(
    data_dir: Path, seed: int, dev_percent: int = 10, files: Iterable[str] = TRAINING_FILES
) -> tuple[list[Example], list[Example]]:
    """(train, dev) examples; dev holds the contexts whose source id hashes into `dev_percent`."""
    sources = load_sources(data_dir, files)
    gen = Generator(sources, seed)
    train: list[Example] = []
    dev: list[Example] = []
    for source in sources:
        (dev if is_dev(source.source_id, dev_percent) else train).extend(gen.for_source(source))
    random.Random(seed).shuffle(train)
    return train, dev
