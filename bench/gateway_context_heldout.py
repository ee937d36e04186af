"""Builds tests/data/gateway_context_heldout.jsonl: a second set, written after the
extractor was fixed on the first, with templates and passages it never saw.

It is a check, not a target: do not change the extractor to fit it; when it
fails, add the failing shape to bench/gateway_context_set.py and fix it there.

    python bench/gateway_context_heldout.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateway_context_set import system, ungrounded_rows, user, write

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "gateway_context_heldout.jsonl"

DOCS = [
    (
        "Danube",
        "The Danube is Europe's second-longest river after the Volga. It flows for about 2,850 kilometres through ten countries, from the Black Forest to the Black Sea.",
    ),
    (
        "Password reset",
        "To reset your password, open Settings, choose Security and click Reset password. A link valid for 24 hours is sent to the email address on file.",
    ),
    (
        "Mitochondria",
        "Mitochondria generate most of the cell's supply of adenosine triphosphate through oxidative phosphorylation. They contain their own small circular genome.",
    ),
    (
        "Parental leave",
        "Birth parents receive 16 weeks of fully paid parental leave and other parents receive 8 weeks. Leave must be taken within 12 months of the birth or adoption.",
    ),
    (
        "Sahara",
        "The Sahara is the largest hot desert in the world, covering about 9.2 million square kilometres across North Africa. Its area has varied greatly over the last several thousand years.",
    ),
    (
        "API rate limits",
        "Free-tier accounts may send 60 requests per minute. Paid accounts may send 600 requests per minute, and exceeding the limit returns HTTP 429 with a Retry-After header.",
    ),
    (
        "Penicillin",
        "Alexander Fleming discovered penicillin in 1928 at St Mary's Hospital in London after noticing that a mould had killed the bacteria in a culture plate.",
    ),
    (
        "Data retention",
        "Application logs are retained for 90 days and then deleted. Billing records are kept for seven years to meet tax obligations.",
    ),
    (
        "Mars rover",
        "NASA's Perseverance rover landed in Jezero Crater on 18 February 2021. It carried the Ingenuity helicopter, which made the first powered flight on another planet.",
    ),
    (
        "Return window",
        "Electronics can be returned within 15 days if unopened. Opened electronics are subject to a 15% restocking fee.",
    ),
    (
        "Octopus",
        "An octopus has three hearts and blue, copper-based blood. Two hearts pump blood through the gills while the third pumps it to the rest of the body.",
    ),
    (
        "Expense policy",
        "Meals during business travel are reimbursed up to $75 per day. Receipts are required for any single expense above $25.",
    ),
]
Q = {
    "Danube": "How long is the Danube?",
    "Password reset": "How long is the reset link valid?",
    "Mitochondria": "What do mitochondria produce?",
    "Parental leave": "How much leave do non-birth parents get?",
    "Sahara": "How big is the Sahara?",
    "API rate limits": "What is the paid rate limit?",
    "Penicillin": "Who discovered penicillin?",
    "Data retention": "How long are logs kept?",
    "Mars rover": "When did Perseverance land?",
    "Return window": "Is there a fee for returning opened electronics?",
    "Octopus": "How many hearts does an octopus have?",
    "Expense policy": "What is the daily meal limit?",
}


def templates(docs, q):
    one = docs[0][1]
    joined = "\n\n".join(t for _, t in docs)
    return {
        "alpaca_input": [
            user(
                f"### Instruction:\nAnswer the question using the input.\n\n### Input:\n{joined}\n\n### Question:\n{q}\n\n### Response:"
            )
        ],
        "knowledge_header": [system(f"You are a helpful bot.\n\nKnowledge:\n{joined}"), user(q)],
        "relevant_information": [
            user(
                f"Relevant information:\n{joined}\n\nUsing only the information above, {q[0].lower() + q[1:]}"
            )
        ],
        "article_qa": [user(f"Article: {one}\n\nQ: {q}\nA:")],
        "doc_id_tags": [
            system("Answer with the documents."),
            user(
                "\n".join(f'<doc id="{i}">{t}</doc>' for i, (_, t) in enumerate(docs, 1))
                + f"\n\n{q}"
            ),
        ],
        "angle_delimited": [
            user(
                f"Answer the question based on the text delimited by triple angle brackets.\n<<<\n{joined}\n>>>\n{q}"
            )
        ],
        "function_role": [
            user(q),
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "lookup", "arguments": "{}"},
            },
            {"role": "function", "name": "lookup", "content": joined},
        ],
        "autogen_tool": [
            system("You are a helpful AI assistant. Reply TERMINATE when the task is done."),
            user(q),
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "retrieve", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "t1", "content": joined},
        ],
        "given_this_text": [user(f"Given this text, answer: {q}\n\nText: {one}")],
        "facts_list": [
            system("Here are some facts you can rely on:\n" + "\n".join(f"- {t}" for _, t in docs)),
            user(q),
        ],
        "developer_role_context": [
            {"role": "developer", "content": f"Context:\n{joined}"},
            user(q),
        ],
        "quote_block": [
            user(
                "Based on this passage:\n\n"
                + "\n".join(f"> {line}" for line in one.split(". "))
                + f"\n\n{q}"
            )
        ],
    }


NEGATIVES = [
    [
        system(
            "Answer the following questions as best you can. Use the following format:\n\nQuestion: the input question\nThought: think about what to do\nAction: the action to take\nObservation: the result\nFinal Answer: the final answer"
        ),
        user("What is 17 times 23?"),
    ],
    [
        user(
            "Read the following instructions carefully and then write a limerick about a cat who loves jazz."
        )
    ],
    [
        system(
            "You are Max, a cheerful fitness coach who motivates people with short, energetic messages. You never give medical advice and you always suggest consulting a doctor for injuries."
        ),
        user("Motivate me to go running today!"),
    ],
    [
        user(
            'Here is my code:\n```go\nfunc main() {\n    fmt.Println("hi")\n}\n```\nWhy doesn\'t it compile?'
        )
    ],
    [user("Summarize our conversation so far.")],
    [user("List five countries in South America.")],
    [
        system("You are a helpful assistant. Today's date is 2026-11-24."),
        user("What day of the week is it?"),
    ],
    [user("Write a cover letter for a junior data analyst position.")],
]
MISSING = [
    [
        system("Only answer from the knowledge base articles provided. Never guess."),
        user("What is the refund window?"),
    ],
    [user("Using the attached PDF, what are the payment terms?")],
    [
        system("You are a RAG assistant. Cite the retrieved documents as [n]."),
        user("Who founded the company?"),
    ],
]


def build() -> list[dict]:
    rows = []
    for i in range(len(DOCS)):
        docs = [DOCS[i], DOCS[(i + 5) % len(DOCS)]] if i % 2 else [DOCS[i]]
        q = Q[docs[0][0]]
        for family, messages in templates(docs, q).items():
            if (sum(map(ord, family)) + i) % 3:  # a deterministic third of the combinations
                continue
            single = family in ("article_qa", "given_this_text", "quote_block")
            gold = [docs[0][1]] if single else [t for _, t in docs]
            rows.append(
                {
                    "id": f"{family}-{i}",
                    "family": family,
                    "messages": messages,
                    "gold": gold,
                    "grounded": "found",
                }
            )
    return rows + ungrounded_rows(NEGATIVES, MISSING)


if __name__ == "__main__":
    write(build(), OUT)
