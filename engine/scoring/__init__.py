"""From token probabilities to a verdict: spans and the answer's score
(`spans.py`: Noisy-OR, span-max, calibrated), the typed value checks that move
token scores (`typed_values.py`, `typed_checks.py`), and the rule-based citation
checks (`citations.py`)."""
