"""Staged training on a tiny model: checkpoints resume exactly, stages chain and are skipped
once finished, and both kinds of example (token- and answer-labelled) train."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import BertConfig

from engine.detectors.embedded import load_tokenizer
from engine.detectors.minilm_model import MiniLMTokenClassifier, vocab_flags
from engine.train.datagen import Example
from engine.train.encode import IGNORE, encode_examples
from engine.train.loop import LoopConfig, collate, train
from engine.train.stages import Stage, run_stage


class Stop(Exception):
    pass


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer()


def tiny_model(tokenizer, seed: int = 0) -> MiniLMTokenClassifier:
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=256,
    )  # fmt: skip
    numeric, subword = vocab_flags(tokenizer.get_vocab(), config.vocab_size)
    special = list(tokenizer.all_special_ids)
    return MiniLMTokenClassifier(config, numeric, subword, special, 0, pair_head=True)


def examples() -> list[Example]:
    ctx = ["The museum opens at 9 am and closes at 5 pm. Entry costs 12 euros."]
    rows = []
    for i in range(12):
        answer = f"The museum opens at {9 + i % 3} am."
        start = answer.index(str(9 + i % 3))
        spans = [] if i % 3 == 0 else [(start, start + len(str(9 + i % 3)), "number")]
        rows.append(Example(ctx, None, answer, spans, f"t{i}"))
        rows.append(Example(ctx, None, "Entry is free.", [], f"r{i}", response_label=1))
    return rows


def test_answer_labelled_examples_train_the_pair_head_only(tokenizer):
    # given
    enc, _ = encode_examples(examples()[2:4], tokenizer, 96)
    token_ex, pair_ex = enc
    # then: token labels for the first, none for the second, whose answer mask is still set
    assert 1 in token_ex.labels
    assert token_ex.token_labelled
    assert all(lab == IGNORE for lab in pair_ex.labels)
    assert not pair_ex.token_labelled
    assert sum(pair_ex.answer_mask or []) == len(
        tokenizer("Entry is free.", add_special_tokens=False)["input_ids"]
    )
    batch = collate(enc)
    assert batch["example_labels"].tolist() == [1, 1]


def test_model_writes_pair_logits_at_position_zero(tokenizer):
    model = tiny_model(tokenizer).eval()
    b = collate(encode_examples(examples()[:2], tokenizer, 96)[0])
    with torch.inference_mode():
        out = model(b["input_ids"], b["attention_mask"], b["token_type_ids"])
        model.pair_classifier = None
        plain = model(b["input_ids"], b["attention_mask"], b["token_type_ids"])
    assert torch.allclose(out[:, 1:], plain[:, 1:])
    assert not torch.allclose(out[:, 0], plain[:, 0])


def test_a_stopped_run_resumes_to_the_same_weights(tokenizer, tmp_path: Path):
    data, _ = encode_examples(examples(), tokenizer, 96)
    config = LoopConfig(epochs=2, batch_size=4, checkpoint_every=1, log_every=1, seed=3)
    # given: one run that never stops
    straight = tiny_model(tokenizer)
    train(straight, data, {}, config, tmp_path / "a.pt", log=lambda _: None)

    # when: a run stopped after the 3rd step of its 2nd epoch, then started again
    def stop_at_five(line: str) -> None:
        if "epoch 2 step 3/" in line:
            raise Stop

    stopped = tiny_model(tokenizer)
    with pytest.raises(Stop):
        train(stopped, data, {}, config, tmp_path / "b.pt", log=stop_at_five)
    lines: list[str] = []
    resumed = tiny_model(tokenizer)
    state = train(resumed, data, {}, config, tmp_path / "b.pt", log=lines.append)

    # then
    assert any("resumed" in line and "epoch 1, step 3" in line for line in lines)
    assert state.epoch == 2  # epoch 1's record survived the stop
    assert len(state.history) == 2
    for (name, a), b in zip(
        straight.state_dict().items(), resumed.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b), name


def test_stages_chain_and_a_finished_stage_is_skipped(tokenizer, tmp_path: Path, monkeypatch):
    from engine.train import stages

    monkeypatch.setattr(stages.sources, "load", lambda name, *_: (examples(), examples()[:6]))
    first = Stage("one", {"toy": None}, 96, LoopConfig(epochs=1, batch_size=4))
    second = Stage("two", {"toy": 8}, 96, LoopConfig(epochs=1, batch_size=4))
    model = tiny_model(tokenizer)
    before = {k: v.clone() for k, v in model.trainable_state_dict().items()}
    # when
    r1 = run_stage(first, model, tokenizer, tmp_path, tmp_path / "work", 13, 10, log=lambda _: None)
    after_one = {k: v.clone() for k, v in model.trainable_state_dict().items()}
    r2 = run_stage(
        second, model, tokenizer, tmp_path, tmp_path / "work", 13, 10, log=lambda _: None
    )
    # then: each stage trained and recorded dev metrics; the second started from the first
    assert any(not torch.equal(before[k], after_one[k]) for k in before)
    assert r1.examples["train"] == 24
    assert r2.examples["train"] == 8
    assert "toy.auroc_pair" in r2.history[-1]
    # when: the first stage runs again, it loads its final weights instead of training
    fresh = tiny_model(tokenizer, seed=1)
    lines: list[str] = []
    again = run_stage(
        first, fresh, tokenizer, tmp_path, tmp_path / "work", 13, 10, log=lines.append
    )
    assert "already finished" in lines[0]
    assert again.history == r1.history
    for k, v in fresh.trainable_state_dict().items():
        assert torch.equal(v, after_one[k])
