"""Fixtures for detector tests: a tiny random token classifier built locally."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DATA_DIR = Path(
    os.environ.get(
        "TRUTHLENS_DATA_DIR", Path(__file__).resolve().parents[3].parent / "shared" / "data"
    )
)


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer random BertForTokenClassification with MiniLM's tokenizer, saved to disk."""
    import torch
    from transformers import BertConfig, BertForTokenClassification

    from engine.detectors.embedded import load_tokenizer

    torch.manual_seed(0)
    tokenizer = load_tokenizer()
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=2,
        id2label={0: "supported", 1: "hallucinated"},
        label2id={"supported": 0, "hallucinated": 1},
    )
    model = BertForTokenClassification(config).eval()
    path = tmp_path_factory.mktemp("tiny-bert")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_detector(tiny_model_dir: Path):
    from engine.detectors.transformer import TransformerDetector

    # float32: these tests compare probabilities to 1e-5, whatever the CPU (bf16 is the
    # default only where the CPU has bf16 units, see `resolve_dtype`).
    return TransformerDetector(
        tiny_model_dir, device="cpu", batch_size=4, max_length=192, dtype="float32"
    )
