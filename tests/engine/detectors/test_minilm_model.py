"""The embedded network: the split forward equals the stock encoder; features are right."""

from __future__ import annotations

import torch

from engine.detectors.embedded import base_model_path, load_tokenizer
from engine.detectors.minilm_model import build_model


def test_bottom_then_top_layers_reproduce_the_stock_bert_encoder():
    # given: the lexical projection starts at zero, so the split path must equal BertModel
    from transformers import BertModel

    tokenizer = load_tokenizer()
    model = build_model(base_model_path(), tokenizer, frozen_layers=4).eval()
    enc = tokenizer(["a short prompt", "another, longer prompt here"], ["answer one", "two"],
                    padding=True, return_tensors="pt")  # fmt: skip
    stock = BertModel.from_pretrained(str(base_model_path()), add_pooling_layer=False).eval()
    with torch.inference_mode():
        # when
        hidden = model.bottom(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
        from engine.detectors.minilm_model import additive_mask, run_layers

        mask = additive_mask(enc["attention_mask"], hidden.dtype)
        ours = run_layers(model.bert.encoder.layer[4:], hidden, mask)
        theirs = stock(**enc).last_hidden_state
    # then: compare real (non-padding) positions
    keep = enc["attention_mask"].bool()
    assert torch.allclose(ours[keep], theirs[keep], atol=1e-4)


def test_lexical_features_mark_answer_tokens_missing_from_context():
    tokenizer = load_tokenizer()
    model = build_model(base_model_path(), tokenizer, frozen_layers=4)
    enc = tokenizer("built in 1889 in paris", "built in 1950 in paris", return_tensors="pt")
    feats = model.lexical_features(enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])[
        0
    ]
    tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][0])
    answer = [i for i, t in enumerate(enc["token_type_ids"][0]) if t == 1 and tokens[i] != "[SEP]"]
    by_token = {tokens[i]: feats[i].tolist() for i in answer}
    assert by_token["paris"][0] == 1.0  # in context
    assert by_token["1950"][:3] == [0.0, 1.0, 1.0]  # numeric and absent: a number mismatch
    assert feats[0].sum() == 0  # [CLS] carries no features
