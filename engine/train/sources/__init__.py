"""Training sources for the embedded detector, one module each.

Every source turns training data from `shared/data` (never an evaluation
set) into `datagen.Example`s and splits it into train/dev deterministically.
`load(name, ...)` is the one entry point; `files(name)` lists what a source
reads, so the manifest can record their hashes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .. import datagen
from ..datagen import Example
from . import docnli, halueval, structured, summedits, wice

Loader = Callable[[Path, int, int], tuple[list[Example], list[Example]]]


def _generated(data_dir: Path, seed: int, dev_percent: int) -> tuple[list[Example], list[Example]]:
    return datagen.generate(data_dir, seed, dev_percent)


SOURCES: dict[str, tuple[Loader, tuple[str, ...]]] = {
    "generated": (_generated, datagen.TRAINING_FILES),
    "docnli": (docnli.load, docnli.FILES),
    "summedits": (summedits.load, summedits.FILES),
    "wice": (wice.load, wice.FILES),
    "structured": (structured.load, structured.FILES),
    "halueval": (halueval.load, halueval.FILES),
}


def load(
    name: str, data_dir: Path, seed: int, dev_percent: int
) -> tuple[list[Example], list[Example]]:
    if name not in SOURCES:
        raise KeyError(f"unknown training source {name!r}; known: {', '.join(SOURCES)}")
    return SOURCES[name][0](data_dir, seed, dev_percent)


def files(name: str) -> tuple[str, ...]:
    return SOURCES[name][1]
