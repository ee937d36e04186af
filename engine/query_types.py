"""Query-type classification (the "Sentinel"): which answers are worth verifying.

Two components, added up:
- regex rules with weights, precise on the tell-tale phrasings ("summarize",
  "write a poem", code fences, "in your opinion");
- a multinomial logistic regression over MiniLM embeddings, trained at first
  use on the prototype prompts shipped in `data/query_type_train.jsonl`
  (fixed data, fixed initialisation, full-batch gradient descent: deterministic).
The model generalises over phrasing; the rules correct it where a keyword is
decisive. Without the encoder the rules work alone.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from .policy import DEFAULT_SKIP_QUERY_TYPES
from .text.embeddings import Encoder, get_encoder
from .text.language import detect_language
from .types import QUERY_TYPES

TRAIN_PATH = Path(__file__).parent / "data" / "query_type_train.jsonl"
# Weights fitted from TRAIN_PATH by `query_types.main()` (see its docstring);
# used only while their recorded hash matches the training file (else refit).
WEIGHTS_PATH = Path(__file__).parent / "data" / "query_type_weights.npz"
RULE_WEIGHT = 1.0  # a full-weight rule counts as much as the whole model distribution
#: Types a policy typically skips. The classifier names one only on decisive evidence
#: (a rule of at least `DECISIVE` weight) in a language the rules and prototypes know:
#: a wrong skip lets a hallucination through unchecked, a wrong "factual_qa" costs one
#: verification, so errors must fall towards verifying.
SKIPPABLE = frozenset(DEFAULT_SKIP_QUERY_TYPES)
DECISIVE = 0.8
MODEL_SKIP = 0.5  # the model's own probability that, with any rule support, may skip
#: Health, safety, legal and money questions are verified whatever else they look like.
_SAFETY = re.compile(
    r"\b(?:safe(?:ly|ty)?|danger\w*|poison\w*|toxic|emergency|ER|hospital|doctor|symptoms?|"
    r"dos(?:e|age)|allerg\w*|fire|injur\w*|swallow\w*|medic\w*|pregnan\w*|legal(?:ly)?|law|"
    r"tax(?:es)?|refund|warranty|insurance)\b",
    re.IGNORECASE,
)
RULE_LANGUAGES = frozenset({"en", "und"})
_MARKUP = [
    (re.compile(r"<[^>]{1,200}>"), " "),  # HTML tags
    (re.compile(r"\[([^\]]{1,200})\]\([^)]{0,500}\)"), r"\1"),  # markdown links
    (re.compile(r"(?<!`)`([^`\n]{1,200})`(?!`)"), r"\1"),  # inline code around a name
    (re.compile(r"(\*\*|__|\*|~~)(?=\S)(.{1,200}?)(?<=\S)\1"), r"\2"),  # emphasis
    (re.compile(r"^\s{0,3}(?:#{1,6}|>|[-*+]|\d+[.)])\s+", re.M), ""),  # headings, quotes, lists
    (re.compile(r"&(?:nbsp|amp|lt|gt|quot|#\d+);"), " "),
]


def strip_markup(query: str) -> str:
    """The query's words without HTML or Markdown decoration (code fences stay: they
    are evidence of a code request)."""
    for pattern, repl in _MARKUP:
        query = pattern.sub(repl, query)
    return re.sub(r"\s+", " ", query).strip()


_RULES: list[tuple[str, float, re.Pattern[str]]] = [
    (label, weight, re.compile(pattern, re.I))
    for label, weight, pattern in [
        ("code", 1.0, r"```"),
        ("code", 0.6, r"\b(?:python|javascript|typescript|java|kotlin|rust|golang|c\+\+|"
         r"sql|bash|shell|powershell|regex|regular expression|dockerfile|makefile|"
         r"terraform|kubernetes|react|django|flask|pandas|numpy|node\.js|git)\b"),
        ("code", 1.0, r"\b(?:write|fix|debug|implement|refactor|optimi[sz]e|review|explain)\b.{0,40}"
         r"\b(?:function|class|method|script|program|snippet|regex|query|code|unit tests?|"
         r"endpoint|algorithm)\b|\b(?:stack trace|traceback|segfault|segmentation fault|"
         r"compiler? error|syntax error)\b"),
        # Bare programming words also name things in factual questions ("the class
        # of a ship", "a query to the council"): evidence, never decisive alone.
        ("code", 0.4, r"\b(?:function|class|method|compile|exception|syntax|unit tests?|"
         r"refactor|snippet|script|endpoint|api call|query|algorithm|code)\b"),
        ("code", 0.8, r"\b\w+(?:Error|Exception)\b|\w+\(\)|\.py\b|\.js\b"),
        ("summarization", 1.0, r"\bsumm?ari[sz]\w*|\btl;?dr\b|\brecap\b|\bsynopsis\b|"
         r"\bgist\b|\bkey (?:takeaways|points|highlights|findings)\b|\bcondense\b|"
         r"\bboil (?:this|it) down\b|\bin a nutshell\b|\bexecutive (?:summary|brief)\b|"
         r"\bmain (?:points|findings|conclusions|arguments)\b|\boverview of\b|\bdigest\b"),
        ("data2text", 1.0, r"\b(?:table|json|csv|xml|yaml|spreadsheet|dataframe|infobox|"
         r"triples?|key[:\- ]value|box score|rows?|columns?|spec sheet|specs|chart|"
         r"readings)\b"),
        # Bare "data"/"records" also occur in factual questions ("data breaches"):
        # only a determiner pointing at supplied data makes them decisive.
        ("data2text", 0.8, r"\b(?:this|these|the following|the given|from the|given)\s+"
         r"(?:\w+\s+)?(?:data|records?|fields|attributes|figures|metrics|statistics|stats|"
         r"values)\b"),
        ("data2text", 0.6, r"\b\w+=\S+|\b\w+: \S+[,;]"),
        ("creative", 1.0, r"\b(?:poem|poetry|haiku|limerick|sonnet|ode|villanelle|ballad|"
         r"lyrics|song|rap|rhyme|story|stories|fairy tale|fable|myth|legend|screenplay|"
         r"monologue|sketch|jingle|slogan|tagline|joke|riddle|tongue twister|toast|eulogy|"
         r"fiction(?:al)?|fantasy|sci-?fi|backstory|acrostic|lullaby)\b"),
        ("creative", 0.6, r"^\s*(?:imagine|invent|make up|compose|pen)\b"),
        ("opinion", 1.0, r"\b(?:what do you (?:think|reckon|feel)|in your (?:opinion|view|"
         r"judg(?:e)?ment)|your (?:opinion|view|take|stance|favou?rite)|do you (?:think|"
         r"believe|like|prefer|agree)|would you (?:rather|choose|recommend)|how do you feel|"
         r"overrated)\b"),
        # Practical questions ("should I see a doctor if…", "is it ok to mix bleach and
        # ammonia?") have factual answers: evidence of opinion, never decisive alone.
        ("opinion", 0.5, r"\b(?:is it (?:worth|better|rude|ethical|okay|ok|fair|wise)|should i)\b"),
        ("opinion", 0.6, r"\b(?:best|greatest|better|coolest|most beautiful)\b.*\?\s*$"),
        ("other", 1.0, r"^\s*(?:hi|hello|hey|thanks?|thank you|bye|good (?:morning|night|"
         r"evening)|ok(?:ay)?|yes|no|continue|never mind)\b[\s!.,]*\w{0,12}[\s!.?]*$"),
        ("other", 1.0, r"\b(?:translate|paraphrase|rephrase|proofread|rewrite|reword|"
         r"spell(?:ing)?|grammar|alphabeti[sz]e|capitali[sz]e|uppercase|title case|"
         r"more (?:formal|polite|confident)|tone)\b"),
        ("other", 0.6, r"^\s*(?:convert|calculate|what'?s|what is)\s+[\d.]+"),
        ("factual_qa", 0.4, r"^\s*(?:who|what|when|where|which|how (?:many|much|long|far|"
         r"tall|old)|is|are|does|do|did|can|was|were)\b.*\?\s*$"),
        ("factual_qa", 0.6, r"\b(?:according to|based on the (?:context|document|passages?|"
         r"text)|from the (?:passages|documents|context)|per the)\b"),
        ("factual_qa", 0.8, r"^\s*(?:tell me (?:about|more about)|what should i do (?:if|when|"
         r"about)|what happens (?:if|when)|how do i (?:safely|treat|report|apply|renew|"
         r"cancel|return|get)|is it safe to|can i (?:take|mix|drink|eat|use|return))\b"),
    ]
]  # fmt: skip


def rule_scores(query: str) -> np.ndarray:
    """Per-type rule evidence in [0, 1] (the strongest matching rule of each type)."""
    scores = np.zeros(len(QUERY_TYPES), dtype=np.float64)
    for label, weight, pattern in _RULES:
        if pattern.search(query):
            i = QUERY_TYPES.index(label)
            scores[i] = max(scores[i], weight)
    return scores


def _fit_softmax(
    x: np.ndarray, y: np.ndarray, l2: float = 1e-3, lr: float = 4.0, steps: int = 600
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent from zeros."""
    n, d = x.shape
    k = len(QUERY_TYPES)
    w = np.zeros((d, k))
    b = np.zeros(k)
    onehot = np.eye(k)[y]
    for _ in range(steps):
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = (p - onehot) / n
        w -= lr * (x.T @ grad + l2 * w)
        b -= lr * grad.sum(axis=0)
    return w, b


def load_examples(path: Path = TRAIN_PATH) -> list[tuple[str, str]]:
    """(text, label) pairs from a JSONL file of `{"text", "label"}` objects."""
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                if row["label"] not in QUERY_TYPES:
                    raise ValueError(f"{path}: unknown query type {row['label']!r}")
                out.append((row["text"], row["label"]))
    return out


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fit(encoder: Encoder, examples: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Logistic-regression weights (w, b) over the encoder's embeddings of `examples`."""
    x = encoder.encode([t for t, _ in examples]).astype(np.float64)
    y = np.array([QUERY_TYPES.index(label) for _, label in examples])
    return _fit_softmax(x, y)


def _load_weights(path: Path, train_path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    if not path.exists() or not train_path.exists():
        return None
    with np.load(path) as data:
        if str(data["train_sha256"]) != _file_digest(train_path):
            return None  # prototypes changed since the weights were fitted
        return data["w"], data["b"]


class QueryClassifier(Protocol):
    """What the pipeline needs of a query-type classifier: one (type, confidence) per query."""

    def classify_batch(self, queries: Sequence[str | None]) -> list[tuple[str, float]]: ...


class QueryTypeClassifier:
    """Classifies queries into `QUERY_TYPES` with a confidence in [0, 1].

    With `examples` the model is fitted on them; otherwise the shipped weights
    are used when they match the shipped prototypes, and refitted from those
    prototypes when they do not. Without an encoder only the rules decide.
    """

    def __init__(
        self, encoder: Encoder | None = None, examples: Sequence[tuple[str, str]] | None = None
    ) -> None:
        self.encoder = encoder
        self._w: np.ndarray | None = None
        self._b: np.ndarray | None = None
        if encoder is None:
            return
        weights = None if examples is not None else _load_weights(WEIGHTS_PATH, TRAIN_PATH)
        if weights is None:
            weights = fit(encoder, list(examples) if examples is not None else load_examples())
        self._w, self._b = weights

    def model_probs(self, queries: Sequence[str]) -> np.ndarray:
        """(n, types) model probabilities; uniform when there is no encoder."""
        k = len(QUERY_TYPES)
        if self.encoder is None or self._w is None or self._b is None:
            return np.full((len(queries), k), 1.0 / k)
        logits = self.encoder.encode(list(queries)).astype(np.float64) @ self._w + self._b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        out: np.ndarray = p / p.sum(axis=1, keepdims=True)
        return out

    def classify_batch(self, queries: Sequence[str | None]) -> list[tuple[str, float]]:
        """One (type, confidence) per query; an empty or missing query is ("other", 0.0)."""
        results: list[tuple[str, float]] = [("other", 0.0)] * len(queries)
        live = [(i, q.strip()) for i, q in enumerate(queries) if q and q.strip()]
        if not live:
            return results
        live = [(i, strip_markup(q) or q) for i, q in live]
        probs = self.model_probs([q for _, q in live])
        for (i, q), p in zip(live, probs, strict=True):
            rules = rule_scores(q)
            combined = p + RULE_WEIGHT * rules
            combined /= combined.sum()
            best = int(np.argmax(combined))
            label = QUERY_TYPES[best]
            if label in SKIPPABLE and not self._decisive(q, rules, p, best):
                best = QUERY_TYPES.index("factual_qa")
            results[i] = (QUERY_TYPES[best], round(float(combined[best]), 4))
        return results

    @staticmethod
    def _decisive(query: str, rules: np.ndarray, model: np.ndarray, best: int) -> bool:
        """Whether a skippable type rests on decisive evidence (see `SKIPPABLE`): a
        decisive rule, or the model's confident vote backed by some rule, in a language
        the rules know, and no sign of a factual or safety question."""
        if detect_language(query) not in RULE_LANGUAGES:
            return False
        if rules[QUERY_TYPES.index("factual_qa")] >= DECISIVE or _SAFETY.search(query):
            return False
        return bool(rules[best] >= DECISIVE or (model[best] >= MODEL_SKIP and rules[best] > 0))

    def classify(self, query: str | None) -> tuple[str, float]:
        return self.classify_batch([query])[0]


_lock = threading.Lock()


@functools.cache
def _default() -> QueryTypeClassifier:
    return QueryTypeClassifier(get_encoder())


def default_classifier() -> QueryTypeClassifier:
    """The process-wide classifier (MiniLM + shipped prototypes), built once."""
    with _lock:
        return _default()


def classify_query(query: str | None) -> tuple[str, float]:
    """(query type, confidence) with the default classifier."""
    return default_classifier().classify(query)


def main() -> None:
    """Refit the shipped weights from the shipped prototypes (run after editing them):

    python -c "from engine.query_types import main; main()"
    """
    encoder = get_encoder()
    if encoder is None:
        raise SystemExit("the MiniLM encoder is not installed")
    w, b = fit(encoder, load_examples())
    np.savez(WEIGHTS_PATH, w=w, b=b, train_sha256=np.array(_file_digest(TRAIN_PATH)))
    print(f"wrote {WEIGHTS_PATH} ({w.shape[0]}x{w.shape[1]})")


class KnownTypes:
    """A classifier that hands back query types already computed (for policy
    resolution), so the pipeline does not classify the same query twice."""

    def __init__(self, types: dict[str | None, tuple[str, float]]):
        self.types = types

    def classify_batch(self, queries: Sequence[str | None]) -> list[tuple[str, float]]:
        return [self.types.get(q) or classify_query(q) for q in queries]
