import pytest
from pydantic import ValidationError

from engine.policy import PolicyDocument, resolve


def _policy(**kw):
    return PolicyDocument.model_validate(
        {
            "threshold": 0.6,
            "decisions": [
                {
                    "name": "medical",
                    "priority": 10,
                    "rules": {
                        "operator": "OR",
                        "conditions": [
                            {"type": "domain", "name": "health"},
                            {"type": "keyword", "name": "dosage"},
                        ],
                    },
                    "plugins": [
                        {
                            "type": "hallucination",
                            "configuration": {"mode": "standard", "threshold": 0.3},
                        }
                    ],
                },
                {
                    "name": "chit-chat",
                    "priority": 1,
                    "rules": {"conditions": [{"type": "query_type", "name": "creative"}]},
                    "plugins": [{"type": "hallucination", "configuration": {"enabled": False}}],
                },
            ],
            **kw,
        }
    )


def test_the_highest_priority_matching_decision_wins():
    r = resolve(_policy(), query_type="factual_qa", domain="health")
    assert (r.decision, r.mode, r.threshold) == ("medical", "standard", 0.3)


def test_keyword_rules_match_case_insensitively():
    assert resolve(_policy(), "factual_qa", text="What DOSAGE of ibuprofen?").decision == "medical"


def test_no_match_falls_back_to_the_global_settings():
    r = resolve(_policy(), "factual_qa", domain="finance", text="hi")
    assert (r.decision, r.threshold, r.enabled) == ("default", 0.6, True)


def test_a_decision_can_disable_detection():
    assert resolve(_policy(), "creative").enabled is False


def test_a_named_decision_must_exist():
    with pytest.raises(KeyError):
        resolve(_policy(), "factual_qa", decision_name="nope")


def test_invalid_documents_are_rejected_with_paths():
    with pytest.raises(ValidationError) as err:
        PolicyDocument.model_validate({"threshold": 3, "decisions": [{"name": "a"}, {"name": "a"}]})
    locs = {tuple(e["loc"]) for e in err.value.errors()}
    assert ("threshold",) in locs
    assert ("decisions",) in locs


def test_a_warning_template_with_unknown_fields_is_rejected():
    with pytest.raises(ValidationError):
        PolicyDocument.model_validate({"warning_template": "bad {nope}"})
