"""Explaining flagged spans: each span's label (contradiction or unsupported) and
reason (`labels.py`), its best evidence in the context (`evidence.py`), and the
typed conflicts between answer and context (`conflicts.py`)."""
