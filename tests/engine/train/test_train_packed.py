"""Training prepared on one machine and run on another (issue 20, item 9): encoded examples
survive the packed file exactly, a stage trained from it ends with the same weights as one
trained from the raw data, and a trimmed base encoder restores the rows training looks up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from engine.detectors.minilm_model import load_base_encoder
from engine.train import packed
from engine.train.encode import encode_examples
from engine.train.loop import LoopConfig
from engine.train.stages import Stage, prepare_stage, run_stage, scaled

from .test_train_stages import examples, tiny_model, tokenizer  # noqa: F401  (fixture)


def test_encoded_examples_round_trip_through_the_packed_file(tokenizer, tmp_path: Path):  # noqa: F811
    # given
    train, _ = encode_examples(examples(), tokenizer, 96)
    dev, _ = encode_examples(examples()[:5], tokenizer, 96)
    # when
    path = packed.save(tmp_path / "s.npz", train, {"toy": dev}, dropped=3)
    got_train, got_dev, dropped = packed.load(path)
    # then
    assert got_train == train
    assert got_dev == {"toy": dev}
    assert dropped == 3
    assert any(not e.token_labelled for e in got_train)  # answer-labelled rows keep their flag


def test_a_stage_trained_from_prepared_examples_matches_one_trained_from_raw_data(
    tokenizer,  # noqa: F811
    tmp_path: Path,
    monkeypatch,
):
    from engine.train import stages

    monkeypatch.setattr(stages.sources, "load", lambda name, *_: (examples(), examples()[:6]))
    stage = Stage("one", {"toy": None}, 96, LoopConfig(epochs=1, batch_size=4))
    train, dev, dropped = prepare_stage(stage, tokenizer, tmp_path, 13, 10)
    packed.save(tmp_path / "prep" / "one.npz", train, dev, dropped)
    direct, from_file = tiny_model(tokenizer), tiny_model(tokenizer)
    # when
    a = run_stage(stage, direct, tokenizer, tmp_path, tmp_path / "w1", 13, 10, log=lambda _: None)
    monkeypatch.setattr(
        stages.sources, "load", lambda *_: (_ for _ in ()).throw(OSError("no data"))
    )
    b = run_stage(
        stage, from_file, tokenizer, tmp_path, tmp_path / "w2", 13, 10,
        log=lambda _: None, prepared=tmp_path / "prep",
    )  # fmt: skip
    # then: same examples, same weights, without reading the raw data
    assert a.examples == b.examples
    for k, v in direct.trainable_state_dict().items():
        assert torch.equal(v, from_file.trainable_state_dict()[k])


def test_token_stages_can_read_the_whole_inference_window():
    stage = Stage("tokens", {"x": 10}, 384)
    assert scaled(stage, 2.0, 3, 512).max_length == 512
    assert scaled(stage, 2.0, 3, 512).sources == {"x": 20}
    assert scaled(Stage("entail", {"x": 10}, 192), 1.0, None, 512).max_length == 192


def test_a_trimmed_base_restores_the_used_rows_and_loads(tmp_path: Path, monkeypatch):
    # given: a base folder like the wheel's (a tiny encoder)
    src = tmp_path / "base"
    src.mkdir()
    model = tiny_model(__import__("engine.detectors.embedded", fromlist=["x"]).load_tokenizer())
    model.bert.config.to_json_file(str(src / "config.json"))
    save_file(
        {k: v.contiguous() for k, v in model.bert.state_dict().items()},
        str(src / "model.safetensors"),
    )
    (src / "vocab.txt").write_text("x\n")
    used = np.array([0, 5, 101, 2000], dtype=np.int64)
    # when
    trimmed = packed.trim_base(src, tmp_path / "trimmed", used)
    assert not (trimmed / "model.safetensors").exists()
    restored = packed.restore_base(trimmed)
    # then: used rows equal the original's (float16 rounding), all others are zero
    original = load_file(str(src / "model.safetensors"))
    back = load_file(str(restored / "model.safetensors"))
    key = "embeddings.word_embeddings.weight"
    ids = torch.from_numpy(used)
    assert torch.allclose(back[key][ids], original[key][ids], atol=1e-3)
    mask = torch.ones(back[key].shape[0], dtype=torch.bool)
    mask[ids] = False
    assert not back[key][mask].any()
    assert torch.allclose(back["encoder.layer.0.attention.self.query.weight"],
                          original["encoder.layer.0.attention.self.query.weight"], atol=1e-3)  # fmt: skip
    encoder = load_base_encoder(restored)
    assert encoder.config.hidden_size == model.bert.config.hidden_size


def test_weights_split_in_halves_join_back_exactly(tmp_path: Path):
    # given
    state = {f"layer{i}.weight": torch.randn(8, 4).half() for i in range(5)}
    save_file(state, str(tmp_path / "weights.safetensors"))
    # when
    parts = packed.split_weights(tmp_path)
    # then: no file holds everything, and joining restores every tensor bit for bit
    assert len(parts) == 2
    assert not (tmp_path / "weights.safetensors").exists()
    assert all(len(load_file(str(p))) < len(state) for p in parts)
    joined = load_file(str(packed.join_weights(tmp_path)))
    assert set(joined) == set(state)
    assert all(torch.equal(joined[k], v) for k, v in state.items())
    assert not list(tmp_path.glob("weights.part*"))
