"""Window-only attention for ModernBERT's local layers equals the stock SDPA result."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from engine.detectors import local_attention as local_module
from engine.detectors.local_attention import (
    LOCAL_SDPA,
    local_attention,
    use_local_attention,
)


def _band_mask(length: int, half: int, valid: torch.Tensor) -> torch.Tensor:
    i = torch.arange(length)
    band = (i[:, None] - i[None, :]).abs() <= half
    return band[None, None] & valid[:, None, None, :]


@pytest.mark.parametrize("length", [40, 64, 101])
def test_block_attention_equals_masked_full_attention(length):
    # given: a batch whose second row ends in padding
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, length, 8) for _ in range(3))
    valid = torch.ones(2, length, dtype=torch.bool)
    valid[1, length - 13 :] = False
    # when
    got = local_attention(q, k, v, 8, valid, 8**-0.5)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=_band_mask(length, 8, valid))
    # then: equal on real tokens ([b, L, h, d] out)
    expected = expected.transpose(1, 2)
    assert torch.allclose(got[0], expected[0], atol=1e-5)
    assert torch.allclose(got[1, : length - 13], expected[1, : length - 13], atol=1e-5)
    assert torch.isfinite(got).all()


def test_a_modernbert_model_gives_the_same_logits_with_window_only_attention(monkeypatch):
    from transformers import ModernBertConfig, ModernBertForTokenClassification

    # given: a tiny ModernBERT with a 16-token local window and a padded batch
    torch.manual_seed(0)
    config = ModernBertConfig(
        vocab_size=200,
        hidden_size=32,
        num_hidden_layers=3,
        num_attention_heads=2,
        intermediate_size=48,
        local_attention=16,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
        cls_token_id=1,
        sep_token_id=2,
        num_labels=2,
    )
    stock = ModernBertForTokenClassification(config).eval()
    local = ModernBertForTokenClassification(copy.deepcopy(config)).eval()
    local.load_state_dict(stock.state_dict())
    ids = torch.randint(3, 200, (2, 90))
    mask = torch.ones_like(ids)
    mask[1, 70:] = 0
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return local_attention(*args, **kwargs)

    monkeypatch.setattr(local_module, "local_attention", counted)
    # when
    switched = use_local_attention(local)
    with torch.inference_mode():
        a = stock(input_ids=ids, attention_mask=mask).logits
        b = local(input_ids=ids, attention_mask=mask).logits
    # then: the local layers took the block path, and the stock model was left alone
    assert switched
    assert local.config._attn_implementation == LOCAL_SDPA
    assert stock.config._attn_implementation == "sdpa"
    assert calls
    assert torch.allclose(a[mask.bool()], b[mask.bool()], atol=1e-5)


def test_other_models_keep_their_attention(tiny_detector):
    model = tiny_detector._scorer.model
    before = model.config._attn_implementation
    assert not use_local_attention(model)
    assert model.config._attn_implementation == before != LOCAL_SDPA
