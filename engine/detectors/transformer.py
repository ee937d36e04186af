"""Token-classification detectors over context windows (LettuceDetect convention).

`TransformerDetector` runs any Hugging Face token-classification checkpoint
from a local folder (LettuceDetect ModernBERT, a fine-tuned BERT ...). The
model reads the pair `(prompt, answer)`: the prompt holds the question and
numbered context passages (`windows.format_prompt`), truncation applies to
the prompt only, and only answer tokens are scored; the probability of the
"hallucinated" label is mapped back to answer character offsets.

Long contexts: the context is split into windows (`windows.plan_windows`),
each with the full answer. An answer token's probability is the MINIMUM
over the windows. Why the minimum: a token is hallucinated only if no
passage supports it. A window that lacks the supporting passage legitimately
flags the token (from inside that window it *is* unsupported), so max or
mean would turn every long context into false alarms; the window holding
the evidence is the one that knows. The cost is that a contradiction seen
only in one window while another window looks neutral gets the lower score
-- we accept that because a contradicting passage usually also fails to
support the claim elsewhere, and false alarms on long contexts are the
dominant failure otherwise. Every window carries the same (possibly
truncated) answer, so every window "fits the whole answer" and takes part.

An answer longer than one window allows is truncated (the tail tokens get
no probability) and `Coverage.answer_truncated` says so; windows beyond
`max_windows` are dropped and `Coverage.context_truncated` says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import torch

from ..text.batching import length_batches
from ..types import Coverage, DetectionInput, TokenPrediction, TokenProb
from .local_attention import use_local_attention
from .windows import covered_tokens, format_prompt, plan_windows

_MIN_CONTEXT_TOKENS = 64  # an answer may not squeeze the context below this
_SAFETY_MARGIN = 8  # prompt tokenization is not exactly additive over passages
# Padding a short window to a long one costs as much as a real token, and attention
# quadratically: a 700-token window padded to 4 000 is slower than running both apart.
# On CPU a forward pass is compute-bound: batching long windows gains nothing per token,
# and a batch with any padding needs an attention mask, which makes CPU attention ~13 %
# slower. So CPU batches stop at this many (padded) tokens; a longer window runs alone.
_CPU_BATCH_TOKENS = 4096


@dataclass
class _Plan:
    answer: str  # the answer text actually scored (a prefix when truncated)
    prompts: list[str]
    coverage: Coverage


@dataclass
class _Job:
    item: int
    encoding: dict[str, list[int]]
    answer_offsets: list[tuple[int, int]] = field(default_factory=list)
    answer_positions: list[int] = field(default_factory=list)


def resolve_device(device: str | torch.device | None) -> torch.device:
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def cpu_has_native_bf16() -> bool:
    """True where the CPU multiplies bf16 matrices in hardware (AMX or AVX512-BF16)."""
    capabilities = getattr(torch.cpu, "get_capabilities", None)
    if capabilities is None:
        return False
    found = capabilities()
    return bool(found.get("amx_bf16") or found.get("avx512_bf16"))


def resolve_dtype(device: torch.device, dtype: str | torch.dtype | None) -> torch.dtype:
    """The model's dtype unless told otherwise: bf16 (fp16 where bf16 is missing) on CUDA;
    on CPU bf16 where the CPU has bf16 matrix units, else fp32.

    Why bf16 on such CPUs: a ModernBERT-base forward pass of 512 to 4 096 tokens was about
    3x faster there than in fp32 (`bench/detector_speed.py`, ours against ours-fp32), and
    bf16 is the precision CUDA runs the same checkpoints in already. Token probabilities
    moved by at most 0.011 (median 0.002) against fp32 on a random-weight ModernBERT-base.
    Elsewhere bf16 is emulated and slower. `dtype="float32"` opts out.
    """
    if isinstance(dtype, torch.dtype):
        return dtype
    if dtype is not None:
        return cast(torch.dtype, getattr(torch, dtype))
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.bfloat16 if device.type == "cpu" and cpu_has_native_bf16() else torch.float32


class WindowedScorer:
    """Windowing, batching and min-over-windows for one tokenizer + model pair.

    `model(**inputs)` must return logits `[batch, seq, labels]` (or an object
    with `.logits`). Shared by `TransformerDetector` and the embedded detector.
    """

    def __init__(
        self,
        tokenizer: Any,
        model: torch.nn.Module,
        *,
        max_length: int,
        device: torch.device,
        batch_size: int = 16,
        hallucinated_label: int = 1,
        max_windows: int = 32,
        token_overlap: int = 32,
    ) -> None:
        self.tokenizer = tokenizer
        self.model = model
        self.max_length = max_length
        self.device = device
        self.batch_size = batch_size
        self.label = hallucinated_label
        self.max_windows = max_windows
        self.token_overlap = token_overlap
        self.use_token_types = "token_type_ids" in tokenizer.model_input_names
        # Only a model that says so writes pair logits at position 0 (see minilm_model).
        self.pair_head = bool(getattr(model, "has_pair_head", False))
        pair = tokenizer("a", "b")["input_ids"]
        single = len(self._offsets("a")) + len(self._offsets("b"))
        self.special_tokens = len(pair) - single
        self.piece_overhead = len(self._offsets("passage 10: ")) + 1

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        # Measuring a long passage before windowing splits it is intended: no length warning.
        enc = self.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )
        return [tuple(o) for o in enc["offset_mapping"]]

    def _clip(self, text: str, tokens: int) -> str:
        offsets = self._offsets(text)
        return text if len(offsets) <= tokens else text[: offsets[tokens - 1][1]]

    def plan(self, item: DetectionInput) -> _Plan:
        passages = [p for p in item.context if p.strip()]
        # A long question must not eat the whole window.
        question = self._clip(item.query, self.max_length // 4) if item.query else None
        template = len(self._offsets(format_prompt([], question)))
        answer_offsets = self._offsets(item.response)
        answer_room = max(1, self.max_length - self.special_tokens - template - _MIN_CONTEXT_TOKENS)
        answer = item.response
        cov = Coverage(
            context_chars_given=sum(len(p) for p in passages),
            answer_tokens_given=len(answer_offsets),
        )
        if len(answer_offsets) > answer_room:
            answer = item.response[: answer_offsets[answer_room - 1][1]]
            cov.answer_truncated = True
        cov.answer_chars_checked = len(answer)
        answer_tokens = min(len(answer_offsets), answer_room)
        budget = self.max_length - self.special_tokens - template - answer_tokens - _SAFETY_MARGIN
        passage_offsets = [self._offsets(p) for p in passages]
        windows = plan_windows(
            passages, passage_offsets, budget, self.piece_overhead, self.token_overlap
        )
        if len(windows) > self.max_windows:
            windows = windows[: self.max_windows]
            cov.context_truncated = True
        cov.windows = len(windows)
        cov.context_tokens_given = sum(len(o) for o in passage_offsets)
        cov.context_tokens_checked, cov.context_chars_checked = covered_tokens(
            windows, passage_offsets
        )
        prompts = [format_prompt(w.texts(passages), question) for w in windows]
        return _Plan(answer, prompts, cov)

    def _encode(self, item: int, prompt: str, answer: str, cov: Coverage) -> _Job:
        # Tokenize once; only a prompt the plan under-estimated is tokenized again, cut.
        enc = self.tokenizer(prompt, answer, return_offsets_mapping=True, verbose=False)
        seq_ids = enc.sequence_ids()
        prompt_tokens = sum(1 for s in seq_ids if s == 0)
        if len(enc["input_ids"]) > self.max_length:
            enc = self.tokenizer(
                prompt,
                answer,
                truncation="only_first",
                max_length=self.max_length,
                return_offsets_mapping=True,
            )
            seq_ids = enc.sequence_ids()
        lost = prompt_tokens - sum(1 for s in seq_ids if s == 0)
        if lost > 0:  # the safety margin was not enough: the tokenizer cut the prompt
            cov.context_truncated = True
            cov.context_tokens_checked = max(0, cov.context_tokens_checked - lost)
        job = _Job(item, {k: list(enc[k]) for k in self.tokenizer.model_input_names if k in enc})
        for pos, (seq, (start, end)) in enumerate(zip(seq_ids, enc["offset_mapping"], strict=True)):
            if seq == 1 and end > start:
                job.answer_positions.append(pos)
                job.answer_offsets.append((start, end))
        return job

    def _batch_inputs(self, jobs: Sequence[_Job]) -> dict[str, torch.Tensor]:
        width = max(len(j.encoding["input_ids"]) for j in jobs)
        pad_id = self.tokenizer.pad_token_id or 0
        inputs: dict[str, torch.Tensor] = {}
        for key in jobs[0].encoding:
            fill = pad_id if key == "input_ids" else 0
            rows = [j.encoding[key] + [fill] * (width - len(j.encoding[key])) for j in jobs]
            inputs[key] = torch.tensor(rows, dtype=torch.long, device=self.device)
        if "attention_mask" not in inputs:
            rows = [[1] * len(j.encoding["input_ids"]) for j in jobs]
            inputs["attention_mask"] = torch.tensor(
                [r + [0] * (width - len(r)) for r in rows], dtype=torch.long, device=self.device
            )
        if not self.use_token_types:
            inputs.pop("token_type_ids", None)
        return inputs

    @torch.inference_mode()
    def _run(self, jobs: Sequence[_Job]) -> tuple[list[list[float]], list[float]]:
        """Answer-token probabilities per job, batched by similar length, and the
        pair probability per job (position 0) when the model has a pair head."""
        probs: list[list[float]] = [[] for _ in jobs]
        pairs: list[float] = [0.0] * len(jobs)
        lengths = [len(job.encoding["input_ids"]) for job in jobs]
        max_tokens = _CPU_BATCH_TOKENS if self.device.type == "cpu" else None
        for idx in length_batches(lengths, self.batch_size, max_tokens):
            out = self.model(**self._batch_inputs([jobs[i] for i in idx]))
            logits = getattr(out, "logits", out)
            p = torch.softmax(logits.float(), dim=-1)[..., self.label].cpu()
            for row, i in enumerate(idx):
                probs[i] = p[row, jobs[i].answer_positions].tolist()
                pairs[i] = float(p[row, 0])
        return probs, pairs

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        plans = [self.plan(item) for item in items]
        jobs = [
            self._encode(i, prompt, plan.answer, plan.coverage)
            for i, plan in enumerate(plans)
            if plan.answer.strip()
            for prompt in plan.prompts
        ]
        probs, pairs = self._run(jobs) if jobs else ([], [])
        best: list[dict[tuple[int, int], float]] = [{} for _ in items]
        pair_best: list[float | None] = [None] * len(items)
        used = [0] * len(items)
        for job, job_probs, pair in zip(jobs, probs, pairs, strict=True):
            used[job.item] += len(job.encoding["input_ids"])
            # Entailed by any window = entailed, as for tokens.
            seen = pair_best[job.item]
            pair_best[job.item] = pair if seen is None else min(seen, pair)
            for offset, prob in zip(job.answer_offsets, job_probs, strict=True):
                # Supported in any window = supported: keep the minimum.
                best[job.item][offset] = min(prob, best[job.item].get(offset, 1.0))
        results = []
        for i, plan in enumerate(plans):
            tokens = [TokenProb(s, e, p) for (s, e), p in sorted(best[i].items())]
            plan.coverage.answer_tokens_checked = len(tokens)
            if not plan.answer.strip():
                plan.coverage.windows = 0
            pred = TokenPrediction(tokens, plan.coverage, detector_tokens=used[i])
            if self.pair_head:
                pred.pair_prob = pair_best[i]
            results.append(pred)
        return results


def _hallucinated_label(config: Any) -> int:
    """The label index meaning "hallucinated": by name when the config names it, else 1."""
    for idx, name in (getattr(config, "id2label", None) or {}).items():
        if any(word in str(name).lower() for word in ("halluc", "unsupported")):
            return int(idx)
    return 1


class TransformerDetector:
    """A Hugging Face token-classification checkpoint from a local folder."""

    languages: frozenset[str]

    def __init__(
        self,
        model_path: str | Path,
        device: str | torch.device | None = None,
        batch_size: int = 16,
        max_length: int | None = None,
        dtype: str | torch.dtype | None = None,
        *,
        num_threads: int | None = None,
        max_windows: int = 32,
        languages: Iterable[str] = ("en",),
    ) -> None:
        # transformers loads only when a checkpoint is mounted
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        path = Path(model_path)
        if not path.is_dir():
            raise FileNotFoundError(f"model folder not found: {path}")
        self.name = f"transformer:{path.name}"
        self.languages = frozenset(languages)
        dev = resolve_device(device)
        if dev.type == "cpu" and num_threads:
            torch.set_num_threads(num_threads)
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModelForTokenClassification.from_pretrained(str(path), local_files_only=True)
        model.to(device=dev, dtype=resolve_dtype(dev, dtype)).eval()
        if dev.type == "cpu":
            use_local_attention(model)  # ModernBERT's local layers: compute the window only
        limit = min(
            int(getattr(tokenizer, "model_max_length", 512) or 512),
            int(getattr(model.config, "max_position_embeddings", 512) or 512),
            8192,
        )
        self._scorer = WindowedScorer(
            tokenizer,
            model,
            max_length=min(max_length, limit) if max_length else limit,
            device=dev,
            batch_size=batch_size,
            hallucinated_label=_hallucinated_label(model.config),
            max_windows=max_windows,
        )

    @property
    def max_length(self) -> int:
        return self._scorer.max_length

    def predict(self, items: Sequence[DetectionInput]) -> list[TokenPrediction]:
        return self._scorer.predict(items)
