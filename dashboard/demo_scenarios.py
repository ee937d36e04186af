"""The demo dashboard's data: plans, answer scenarios, model prices and the demo policy.

`python manage.py demo_dashboard` (dashboard/management/commands/demo_dashboard.py) turns these
into a month of jobs, spans, mitigation steps, usage and webhook deliveries. Only data here.
"""

from typing import Any

# plan name: (price per verification by mode, USD per 1k detector tokens, LLM markup,
#             rate limit, monthly quota (0: none))
PLANS = {
    "starter": (
        {"lightweight": 0.002, "standard": 0.006, "premium": 0.03},
        "0.0008",
        "1.30",
        "120/min",
        10_000,
    ),
    "growth": (
        {"lightweight": 0.001, "standard": 0.004, "premium": 0.02},
        "0.0005",
        "1.20",
        "600/min",
        0,
    ),
    "enterprise": (
        {"lightweight": 0.0006, "standard": 0.003, "premium": 0.015},
        "0.0003",
        "1.10",
        "3000/min",
        0,
    ),
}

# (query type, context passages, query, answer, [(span text, label, confidence, evidence)], corrected answer)
SCENARIOS = [
    (
        "factual_qa",
        [
            "The Eiffel Tower is a wrought-iron lattice tower in Paris. It was built from 1887 to 1889 "
            "as the entrance to the 1889 World's Fair and is 330 metres tall."
        ],
        "When was the Eiffel Tower built and how tall is it?",
        "The Eiffel Tower was built in 1950 and is 330 metres tall.",
        [("in 1950", "contradiction", 0.97, "built from 1887 to 1889")],
        "The Eiffel Tower was built from 1887 to 1889 and is 330 metres tall.",
    ),
    (
        "factual_qa",
        [
            "Refunds are available within 30 days of purchase for unused items. Opened software is not "
            "refundable. Refunds are issued to the original payment method within 5 business days."
        ],
        "Can I get a refund for opened software?",
        "Yes, opened software can be refunded within 60 days, and refunds arrive as store credit.",
        [
            (
                "opened software can be refunded within 60 days",
                "contradiction",
                0.93,
                "Opened software is not refundable.",
            ),
            (
                "refunds arrive as store credit",
                "contradiction",
                0.81,
                "Refunds are issued to the original payment method",
            ),
        ],
        "No. Opened software is not refundable; other unused items can be refunded within 30 days.",
    ),
    (
        "summarization",
        [
            "Q3 revenue grew 12% year over year to $48.2M, driven by the enterprise segment. Operating "
            "margin fell to 9% because of higher cloud costs. The company reaffirmed full-year guidance."
        ],
        "Summarize the quarter.",
        "Revenue rose 12% to $48.2M on enterprise demand, margin fell to 9% on cloud costs, and the "
        "CEO announced a share buyback.",
        [
            (
                "the CEO announced a share buyback",
                "unsupported",
                0.88,
                "The company reaffirmed full-year guidance.",
            )
        ],
        "Revenue rose 12% to $48.2M on enterprise demand; margin fell to 9% on cloud costs; "
        "full-year guidance was reaffirmed.",
    ),
    (
        "factual_qa",
        [
            "Metformin is usually started at 500 mg once or twice daily with meals. The dose may be "
            "increased gradually to a maximum of 2,000 mg per day."
        ],
        "What is the maximum daily dose of metformin?",
        "The maximum daily dose of metformin is 3,000 mg, taken on an empty stomach.",
        [
            ("3,000 mg", "contradiction", 0.95, "a maximum of 2,000 mg per day"),
            ("taken on an empty stomach", "contradiction", 0.74, "with meals"),
        ],
        "The maximum daily dose is usually 2,000 mg, taken with meals.",
    ),
    (
        "data2text",
        ["team: Lyon | wins: 21 | draws: 8 | losses: 5 | goals_for: 66 | goals_against: 30"],
        "Describe Lyon's season.",
        "Lyon won 21 games, drew 8 and lost 5, scoring 66 goals and conceding 30.",
        [],
        "",
    ),
    (
        "factual_qa",
        [
            "Python 3.12 was released on October 2, 2023. It added a per-interpreter GIL and improved "
            "error messages."
        ],
        "When was Python 3.12 released?",
        "Python 3.12 was released on October 2, 2023, and removed the GIL entirely.",
        [("removed the GIL entirely", "unsupported", 0.86, "It added a per-interpreter GIL")],
        "Python 3.12 was released on October 2, 2023; it added a per-interpreter GIL.",
    ),
    (
        "summarization",
        [
            "The meeting agreed to move the launch to May 14. Marketing will deliver the campaign plan by "
            "April 20. Legal review of the terms is still pending."
        ],
        "What did the meeting decide?",
        "The launch moves to May 14, marketing delivers the campaign plan by April 20, and legal review "
        "is still pending.",
        [],
        "",
    ),
    (
        "creative",
        [],
        "Write a haiku about the sea.",
        "Grey waves fold and turn / salt wind carries gull voices / the tide keeps its time",
        [],
        "",
    ),
]
# the LLMs each mitigation mode calls; the first is called once per iteration, the others once
MODELS = {
    "standard": ["openai/gpt-4o-mini"],
    "premium": ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku", "openai/gpt-4o"],
}
# USD per 1M tokens: (input, output)
MODEL_PRICE = {
    "openai/gpt-4o-mini": (0.15, 0.6),
    "anthropic/claude-3-5-haiku": (0.8, 4.0),
    "openai/gpt-4o": (2.5, 10.0),
}

DEMO_POLICY: dict[str, Any] = {
    "default_mode": "auto",
    "threshold": 0.5,
    "premium": {
        "verification_models": ["anthropic/claude-3-5-haiku"],
        "judge_model": "openai/gpt-4o",
    },
    "budgets": {"monthly_usd": 250},
    "decisions": [
        {
            "name": "medical",
            "priority": 20,
            "rules": {
                "operator": "OR",
                "conditions": [
                    {"type": "domain", "name": "health"},
                    {"type": "keyword", "name": "dose"},
                ],
            },
            "plugins": [
                {
                    "type": "hallucination",
                    "configuration": {
                        "mode": "premium",
                        "threshold": 0.3,
                        "require_disclaimer": True,
                    },
                }
            ],
        },
        {
            "name": "support",
            "priority": 10,
            "rules": {"operator": "OR", "conditions": [{"type": "keyword", "name": "refund"}]},
            "plugins": [
                {
                    "type": "hallucination",
                    "configuration": {"mode": "standard", "max_iterations": 2},
                }
            ],
        },
        {
            "name": "creative",
            "priority": 5,
            "rules": {"operator": "OR", "conditions": [{"type": "query_type", "name": "creative"}]},
            "plugins": [{"type": "hallucination", "configuration": {"enabled": False}}],
        },
    ],
}
