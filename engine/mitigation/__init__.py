"""Mitigation modes (docs/policies.md "Policies and mitigation modes"): lightweight warning, self-refine, cross-model premium,
no-LLM repair and the budgeted detection cascade. The registry of modes is `engine/modes.py`;
each mode's runner lives in its module here.

Every mode takes the re-detection function as a parameter (`Redetect`), so the engine stays free
of Django and Celery and the modes can be tested with a fake detector. Code outside the engine
imports these names from `engine` (its public module), which loads the ones that need litellm on
first use.
"""
