"""Sliding-window attention that computes only the window, for ModernBERT on CPU.

ModernBERT (the LettuceDetect base) alternates one global-attention layer with
two local layers where a token sees only the tokens within 64 positions. The
Hugging Face SDPA path runs those local layers as full attention under a band
mask: at 4 000 tokens that is about 30 times the arithmetic the window needs,
and attention then takes about 60 % of a CPU forward pass (`bench/detector_speed.py`).

`local_sdpa_forward` computes the same result block by block: each block of
`w` queries attends to the `3w` keys around it, masked to the exact band and to
padding. Global layers, and sequences too short to gain, go to the stock SDPA
function. It is registered with transformers' `AttentionInterface` under
`LOCAL_SDPA`, with SDPA's mask builder, so the masks are SDPA's own.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

LOCAL_SDPA = "truthlens_local_sdpa"


def _key_validity(mask: torch.Tensor | None, batch: int, length: int) -> torch.Tensor:
    """[batch, length] True where a key is a real token, read off the SDPA mask's diagonal.

    On the diagonal the band always holds, so a False (or -inf) there is padding.
    """
    if mask is None:
        return torch.ones(batch, length, dtype=torch.bool)
    diagonal = mask[:, 0].diagonal(dim1=-2, dim2=-1)
    valid = diagonal if diagonal.dtype == torch.bool else diagonal == 0
    return valid.expand(batch, length)


def local_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    half_window: int,
    valid: torch.Tensor,
    scaling: float,
) -> torch.Tensor:
    """softmax(QK^T) V over keys with |i - j| <= half_window that are `valid`; [b, L, h, d] out.

    `query`/`key`/`value` are [b, h, L, d]; `valid` is [b, L]. Queries go in blocks of
    `half_window`; block i sees key blocks i-1, i and i+1, taken as shifted views of one
    padded tensor so that no key or value is copied per block.
    """
    b, h, length, d = query.shape
    w = half_window
    blocks = -(-length // w)
    tail = blocks * w - length
    q = F.pad(query * scaling, (0, 0, 0, tail)).view(b, h, blocks, w, d)
    k = F.pad(key, (0, 0, w, tail + w)).view(b, h, blocks + 2, w, d)
    v = F.pad(value, (0, 0, w, tail + w)).view(b, h, blocks + 2, w, d)
    scores = torch.cat(
        [torch.matmul(q, k[:, :, i : i + blocks].transpose(-1, -2)) for i in range(3)], dim=-1
    )  # [b, h, blocks, w, 3w]: query row r, key column c is position (block - 1) * w + c
    row = torch.arange(w, device=query.device)[:, None]
    col = torch.arange(3 * w, device=query.device)[None, :]
    band = (col >= row) & (col <= row + 2 * w)  # |i - j| <= w
    keys = F.pad(valid.to(query.device), (w, tail + w), value=False).view(b, blocks + 2, w)
    keys = torch.cat([keys[:, i : i + blocks] for i in range(3)], dim=-1)  # [b, blocks, 3w]
    allowed = band[None, None] & keys[:, :, None, :]  # [b, blocks, w, 3w]
    # A finite fill, not -inf: a query with no allowed key (padding) must not turn into NaN,
    # since NaN times a zero weight would still reach real tokens through the values.
    scores = scores.masked_fill_(~allowed[:, None], torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    out = torch.matmul(probs[..., :w], v[:, :, :blocks])  # [b, h, blocks, w, d]
    for i in (1, 2):
        out += torch.matmul(probs[..., i * w : (i + 1) * w], v[:, :, i : i + blocks])
    return out.reshape(b, h, blocks * w, d)[:, :, :length].transpose(1, 2).contiguous()


def local_sdpa_forward(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    sliding_window: int | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """transformers attention-function signature; local layers of long inputs take the block path."""
    # transformers internals load only when a mounted model uses sliding windows
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    length = query.shape[2]
    # ModernBERT passes window + 1 (flash-attention's inclusive convention); its SDPA band
    # mask is |i - j| <= config.sliding_window.
    half = getattr(getattr(module, "config", None), "sliding_window", None)
    if sliding_window is None or not half or length < 4 * half or module.training:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    valid = _key_validity(attention_mask, query.shape[0], length)
    return local_attention(query, key, value, int(half), valid, scale), None


def register() -> str:
    """Make `LOCAL_SDPA` known to transformers (idempotent); returns its name."""
    # transformers internals load only when a mounted model uses sliding windows
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(LOCAL_SDPA, local_sdpa_forward)
    AttentionMaskInterface.register(LOCAL_SDPA, sdpa_mask)
    return LOCAL_SDPA


def use_local_attention(model: torch.nn.Module) -> bool:
    """Switch a ModernBERT model running SDPA to `LOCAL_SDPA`; False for any other model."""
    config = getattr(model, "config", None)
    if getattr(config, "model_type", None) != "modernbert":
        return False
    if getattr(config, "_attn_implementation", None) != "sdpa":
        return False
    model.set_attn_implementation(register())  # type: ignore[operator]
    return True
