"""Encoded training examples in one compact file, so that a stage can be
prepared on one machine and trained on another (a GPU machine that has
the encoder's code but neither the raw data nor its converters).

    python -m engine.train --prepare DIR   # here: DIR/<stage>.npz
    python -m engine.train --prepared DIR  # there: train from them

Each split is stored as flat arrays (token ids as uint16: the vocabulary
has 30,522 entries) plus per-example lengths, so a stage of tens of
thousands of examples takes a few megabytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .encode import Encoded


def _flat(rows: Sequence[Encoded]) -> dict[str, np.ndarray]:
    lengths = np.array([len(r.input_ids) for r in rows], dtype=np.int32)
    return {
        "lengths": lengths,
        "input_ids": np.array([t for r in rows for t in r.input_ids], dtype=np.uint16),
        "token_type_ids": np.array([t for r in rows for t in r.token_type_ids], dtype=np.int8),
        "labels": np.array([t for r in rows for t in r.labels], dtype=np.int8),
        "answer_mask": np.array(
            [t for r in rows for t in (r.answer_mask or [0] * len(r.labels))], dtype=np.int8
        ),
        "example_label": np.array([r.example_label for r in rows], dtype=np.int8),
        "token_labelled": np.array([r.token_labelled for r in rows], dtype=np.bool_),
    }


def _rows(arrays: dict[str, np.ndarray]) -> list[Encoded]:
    ends = np.cumsum(arrays["lengths"])
    starts = ends - arrays["lengths"]
    out = []
    for i, (s, e) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        out.append(
            Encoded(
                arrays["input_ids"][s:e].astype(np.int64).tolist(),
                arrays["token_type_ids"][s:e].astype(np.int64).tolist(),
                arrays["labels"][s:e].astype(np.int64).tolist(),
                int(arrays["example_label"][i]),
                answer_mask=arrays["answer_mask"][s:e].astype(np.int64).tolist(),
                token_labelled=bool(arrays["token_labelled"][i]),
            )
        )
    return out


def save(
    path: Path, train: Sequence[Encoded], dev: Mapping[str, Sequence[Encoded]], dropped: int
) -> Path:
    arrays: dict[str, Any] = {f"train.{k}": v for k, v in _flat(train).items()}
    for name, rows in dev.items():
        arrays |= {f"dev.{name}.{k}": v for k, v in _flat(rows).items()}
    arrays["dropped"] = np.array([dropped], dtype=np.int64)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    return path


def load(path: Path) -> tuple[list[Encoded], dict[str, list[Encoded]], int]:
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    groups: dict[str, dict[str, np.ndarray]] = {}
    for key, value in arrays.items():
        if key == "dropped":
            continue
        split, field = key.rsplit(".", 1)
        groups.setdefault(split, {})[field] = value
    train = _rows(groups.pop("train"))
    dev = {split.removeprefix("dev."): _rows(a) for split, a in groups.items()}
    return train, dev, int(arrays["dropped"][0])


def token_ids_used(paths: Sequence[Path]) -> np.ndarray:
    """Every token id that any prepared split uses (what a trimmed base must keep)."""
    used: set[int] = set()
    for path in paths:
        with np.load(path) as data:
            for key in data.files:
                if key.endswith(".input_ids"):
                    used.update(np.unique(data[key]).tolist())
    return np.array(sorted(used), dtype=np.int64)


_WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


def trim_base(src: Path, dst: Path, used: np.ndarray) -> Path:
    """A copy of the base encoder's folder that keeps, of the word embeddings, only the rows
    of `used` token ids (float16; the embeddings never train, so rows no example looks up
    cannot matter), for a machine that receives the folder inside a size limit."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.is_file() and item.suffix != ".safetensors" and item.stat().st_size < 5_000_000:
            shutil.copy2(item, dst / item.name)
    state = load_file(str(src / "model.safetensors"))
    key = next(k for k in state if k.endswith(_WORD_EMBEDDINGS))
    ids = torch.from_numpy(used)
    out = {k: v.to(torch.float16).contiguous() for k, v in state.items() if k != key}
    out["trimmed.rows"] = state[key][ids].to(torch.float16).contiguous()
    out["trimmed.ids"] = ids
    out["trimmed.vocab"] = torch.tensor([state[key].shape[0]])
    save_file(out, str(dst / "trimmed.safetensors"), metadata={"key": key})
    return dst


def restore_base(trimmed: Path) -> Path:
    """Write `model.safetensors` (float32, full vocabulary: unused rows zero) beside a trimmed
    base's files, so the folder loads like the wheel's."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    with safe_open(str(trimmed / "trimmed.safetensors"), "pt") as fh:
        key = (fh.metadata() or {})["key"]
    state = load_file(str(trimmed / "trimmed.safetensors"))
    rows, ids, vocab = (
        state.pop("trimmed.rows"),
        state.pop("trimmed.ids"),
        state.pop("trimmed.vocab"),
    )
    full = torch.zeros(int(vocab[0]), rows.shape[1], dtype=torch.float32)
    full[ids] = rows.float()
    out = {k: v.float().contiguous() for k, v in state.items()} | {key: full}
    save_file(out, str(trimmed / "model.safetensors"))
    return trimmed


def split_weights(folder: Path, parts: int = 2) -> list[Path]:
    """Write `weights.safetensors` as `weights.partN.safetensors` files and remove it (a GPU
    machine returns no file over 16 MiB; the float16 weights are 21 MB)."""
    from safetensors.torch import load_file, save_file

    whole = folder / "weights.safetensors"
    state = load_file(str(whole))
    keys = sorted(state)
    out = []
    for n in range(parts):
        chunk = keys[n::parts]
        path = folder / f"weights.part{n + 1}.safetensors"
        save_file({k: state[k] for k in chunk}, str(path))
        out.append(path)
    whole.unlink()
    return out


def join_weights(folder: Path) -> Path:
    """The inverse of `split_weights`: one `weights.safetensors` from its parts (removed)."""
    from safetensors.torch import load_file, save_file

    parts = sorted(folder.glob("weights.part*.safetensors"))
    state: dict[str, Any] = {}
    for path in parts:
        state |= load_file(str(path))
    whole = folder / "weights.safetensors"
    save_file(state, str(whole), metadata={"format": "pt", "name": "embedded-minilm"})
    for path in parts:
        path.unlink()
    return whole


if __name__ == "__main__":  # python -m engine.train.packed split|join FOLDER
    import sys

    verb, target = sys.argv[1], Path(sys.argv[2])
    print(split_weights(target) if verb == "split" else join_weights(target))
