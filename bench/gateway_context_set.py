"""Builds tests/data/gateway_context.jsonl: chat requests shaped like real RAG and agent traffic.

Each line: {"id", "family", "messages", "gold": [passages], "grounded": "found"|"missing"|"none"}.
The prompt templates follow the public defaults of the common frameworks (LangChain's
rag-prompt and stuff chain, LlamaIndex's text-QA and chat templates, Haystack's
PromptBuilder example, DSPy's context field, Anthropic's long-context XML layout, the
OpenAI cookbook's triple-quoted articles), agent traces with tool results, content-part
documents, Markdown and plain-language prompts, and negatives with no document.
The passages are written for this set; nothing comes from /work/shared/data.

    python bench/gateway_context_set.py   # rewrites the file (deterministic)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "gateway_context.jsonl"

DOCS = [
    (
        "Eiffel Tower",
        "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. It was built from 1887 to 1889 as the entrance arch to the 1889 World's Fair and is 330 metres tall.",
    ),
    (
        "Refund policy",
        "Customers may return unused items within 30 days of delivery for a full refund. Refunds are issued to the original payment method within 5 business days after the return is inspected.",
    ),
    (
        "Photosynthesis",
        "Photosynthesis converts light energy into chemical energy stored in glucose. In plants it takes place in the chloroplasts, where chlorophyll absorbs mostly blue and red light.",
    ),
    (
        "Q3 earnings",
        "Acme Corp reported third-quarter revenue of $4.2 billion, up 8% year over year. Operating margin fell to 11.5% because of higher logistics costs in Europe.",
    ),
    (
        "Insulin",
        "Insulin is a peptide hormone produced by beta cells of the pancreatic islets. It lowers blood glucose by promoting the uptake of glucose into liver, fat and skeletal muscle cells.",
    ),
    (
        "GDPR fines",
        "Under the GDPR, supervisory authorities can impose fines of up to 20 million euros or 4% of a company's worldwide annual turnover, whichever is higher, for the most serious infringements.",
    ),
    (
        "Great Barrier Reef",
        "The Great Barrier Reef is the world's largest coral reef system, composed of over 2,900 individual reefs stretching for more than 2,300 kilometres off the coast of Queensland, Australia.",
    ),
    (
        "Python GIL",
        "CPython's global interpreter lock allows only one thread to execute Python bytecode at a time. Since Python 3.13 an experimental free-threaded build can run without the GIL.",
    ),
    (
        "Mount Kilimanjaro",
        "Mount Kilimanjaro in Tanzania is the highest mountain in Africa, rising 5,895 metres above sea level. Its summit, Uhuru Peak, is on the Kibo volcanic cone.",
    ),
    (
        "Leave policy",
        "Full-time employees accrue 1.75 days of paid annual leave per month of service. Unused leave of up to 10 days can be carried over into the next calendar year.",
    ),
    (
        "Apollo 11",
        "Apollo 11 landed on the Moon on 20 July 1969. Neil Armstrong and Buzz Aldrin spent about 21 hours on the lunar surface while Michael Collins orbited in the command module.",
    ),
    (
        "Warranty",
        "The X200 vacuum cleaner carries a two-year limited warranty covering manufacturing defects. Batteries are covered for six months, and damage from misuse is excluded.",
    ),
    (
        "Marie Curie",
        "Marie Curie was the first person to win Nobel Prizes in two different sciences: physics in 1903 and chemistry in 1911. She discovered the elements polonium and radium.",
    ),
    (
        "Kubernetes pods",
        "A Kubernetes pod is the smallest deployable unit and can hold one or more containers that share network and storage. Pods are ephemeral and are usually managed by controllers such as Deployments.",
    ),
    (
        "Amazon river",
        "The Amazon River in South America carries more water than any other river, discharging about 209,000 cubic metres per second into the Atlantic Ocean.",
    ),
    (
        "Vaccine schedule",
        "The measles, mumps and rubella vaccine is given in two doses: the first at 12 to 15 months of age and the second at 4 to 6 years of age.",
    ),
    (
        "Shipping",
        "Standard shipping within the continental United States takes 3 to 5 business days. Orders over $50 ship free; express delivery costs $15 and arrives in 1 to 2 business days.",
    ),
    (
        "Bitcoin halving",
        "Bitcoin's block subsidy halves every 210,000 blocks, roughly every four years. The April 2024 halving reduced the reward from 6.25 to 3.125 bitcoin per block.",
    ),
    (
        "Great Wall",
        "The Great Wall of China is a series of fortifications built over many centuries. The best-known sections were built during the Ming dynasty, between 1368 and 1644.",
    ),
    (
        "Lease termination",
        "Either party may terminate this lease with 60 days' written notice. If the tenant terminates before the end of the first year, the security deposit of $2,400 is forfeited.",
    ),
    (
        "Coffee",
        "Coffee beans are the seeds of the Coffea plant. Arabica accounts for about 60% of world production and generally contains less caffeine than Robusta.",
    ),
    (
        "TLS 1.3",
        "TLS 1.3 removed support for static RSA key exchange and reduced the full handshake to one round trip. It was published as RFC 8446 in August 2018.",
    ),
    (
        "Blue whale",
        "The blue whale is the largest animal known to have existed, reaching lengths of up to 30 metres and weights of about 180 tonnes. It feeds almost exclusively on krill.",
    ),
    (
        "Overtime rule",
        "Non-exempt employees must be paid one and a half times their regular rate for hours worked beyond 40 in a workweek. Overtime requires prior approval from a manager.",
    ),
]

QUESTIONS = {
    "Eiffel Tower": "When was the Eiffel Tower built?",
    "Refund policy": "How long do I have to return an item?",
    "Photosynthesis": "Where does photosynthesis happen in plants?",
    "Q3 earnings": "What was Acme's revenue growth in Q3?",
    "Insulin": "Which cells produce insulin?",
    "GDPR fines": "What is the maximum GDPR fine?",
    "Great Barrier Reef": "How long is the Great Barrier Reef?",
    "Python GIL": "Can Python run without the GIL?",
    "Mount Kilimanjaro": "How high is Kilimanjaro?",
    "Leave policy": "How many leave days can I carry over?",
    "Apollo 11": "How long did the astronauts stay on the Moon?",
    "Warranty": "Is the battery covered by the warranty?",
    "Marie Curie": "Which Nobel Prizes did Marie Curie win?",
    "Kubernetes pods": "What is a pod?",
    "Amazon river": "How much water does the Amazon discharge?",
    "Vaccine schedule": "When is the second MMR dose given?",
    "Shipping": "How much does express shipping cost?",
    "Bitcoin halving": "What was the block reward after the 2024 halving?",
    "Great Wall": "When were the best-known sections of the Great Wall built?",
    "Lease termination": "How much notice do I need to give to end the lease?",
    "Coffee": "Which coffee species has more caffeine?",
    "TLS 1.3": "When was TLS 1.3 published?",
    "Blue whale": "What do blue whales eat?",
    "Overtime rule": "How is overtime paid?",
}


def user(text):
    return {"role": "user", "content": text}


def system(text):
    return {"role": "system", "content": text}


# Each template: (family, fn(docs, question) -> messages). `docs` is a list of (title, text).
def langchain_rag_prompt(docs, q):
    ctx = "\n\n".join(t for _, t in docs)
    return [
        user(
            "You are an assistant for question-answering tasks. Use the following pieces of retrieved "
            "context to answer the question. If you don't know the answer, just say that you don't know. "
            f"Use three sentences maximum and keep the answer concise.\nQuestion: {q} \nContext: {ctx} \nAnswer:"
        )
    ]


def langchain_stuff_system(docs, q):
    ctx = "\n\n".join(t for _, t in docs)
    return [
        system(
            "Use the following pieces of context to answer the user's question. \nIf you don't know "
            f"the answer, just say that you don't know, don't try to make up an answer.\n----------------\n{ctx}"
        ),
        user(q),
    ]


def llamaindex_text_qa(docs, q):
    ctx = "\n\n".join(
        f"file_path: {title.lower().replace(' ', '_')}.txt\n\n{t}" for title, t in docs
    )
    return [
        system(
            "You are an expert Q&A system that is trusted around the world.\nAlways answer the query using "
            "the provided context information, and not prior knowledge."
        ),
        user(
            f"Context information is below.\n---------------------\n{ctx}\n---------------------\n"
            f"Given the context information and not prior knowledge, answer the query.\nQuery: {q}\nAnswer: "
        ),
    ]


def haystack_prompt_builder(docs, q):
    ctx = "\n".join(f"    {t}" for _, t in docs)
    return [
        user(
            f"Given the following information, answer the question.\n\nContext:\n{ctx}\n\nQuestion: {q}\nAnswer:"
        )
    ]


def dspy_context(docs, q):
    ctx = "\n".join(f"[{i}] «{title} | {t}»" for i, (title, t) in enumerate(docs, 1))
    return [
        system("Answer questions with short factoid answers."),
        user(
            f"---\n\nContext:\n{ctx}\n\nQuestion: {q}\n\nReasoning: Let's think step by step in order to"
        ),
    ]


def anthropic_xml(docs, q):
    items = "\n".join(
        f'<document index="{i}">\n<source>{title.lower().replace(" ", "_")}.pdf</source>\n'
        f"<document_content>\n{t}\n</document_content>\n</document>"
        for i, (title, t) in enumerate(docs, 1)
    )
    return [
        user(f"<documents>\n{items}\n</documents>\n\n{q} Answer using only the documents above.")
    ]


def xml_context_system(docs, q):
    ctx = "\n".join(t for _, t in docs)
    return [
        system(f"You are a support agent. Answer using the context.\n<context>\n{ctx}\n</context>"),
        user(q),
    ]


def xml_search_results(docs, q):
    items = "\n".join(
        f"<search_result>\n<title>{title}</title>\n<snippet>{t}</snippet>\n</search_result>"
        for title, t in docs
    )
    return [
        system("You answer with citations to the search results."),
        user(f"<search_results>\n{items}\n</search_results>\n\nQuestion: {q}"),
    ]


def openai_cookbook(docs, q):
    title, t = docs[0]
    return [
        system("You answer questions using the provided article."),
        user(
            f"Use the below article on {title} to answer the subsequent question. If the answer cannot be found, "
            f'write "I could not find an answer."\n\nArticle section:\n"""\n{t}\n"""\n\nQuestion: {q}'
        ),
    ]


def markdown_headers(docs, q):
    parts = "\n\n".join(f"### Source {i}: {title}\n{t}" for i, (title, t) in enumerate(docs, 1))
    return [
        system(
            f"# Instructions\nAnswer the user's question with the sources below. Cite them as [n].\n\n## Sources\n\n{parts}"
        ),
        user(q),
    ]


def markdown_fence(docs, q):
    ctx = "\n\n".join(t for _, t in docs)
    return [user(f"Here is the relevant excerpt:\n\n```text\n{ctx}\n```\n\n{q}")]


def plain_answer_from_document(docs, q):
    return [system(f"Answer from this document: {docs[0][1]}"), user(q)]


def plain_read_passage(docs, q):
    return [user(f"Read the following passage and answer the question.\n\n{docs[0][1]}\n\n{q}")]


def plain_summarize(docs, q):
    return [user(f"Summarize the following article in two sentences: {docs[0][1]}")]


def content_parts(docs, q):
    parts = [
        {
            "type": "text",
            "text": f"{title}\n\n{t} This text was provided by the user as reference material for the question that follows.",
        }
        for title, t in docs
    ]
    return [
        system("You are a helpful assistant."),
        {"role": "user", "content": [*parts, {"type": "text", "text": q}]},
    ]


def agent_tool_trace(docs, q):
    calls, results = [], []
    for i, (title, t) in enumerate(docs):
        cid = f"call_{i}"
        calls.append(
            {
                "id": cid,
                "type": "function",
                "function": {"name": "search_docs", "arguments": json.dumps({"query": title})},
            }
        )
        results.append({"role": "tool", "tool_call_id": cid, "content": t})
    return [
        system("You are a research agent. Use the tools to look things up."),
        user(q),
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


def agent_json_tool(docs, q):
    title, t = docs[0]
    payload = json.dumps({"results": [{"title": title, "text": t}]})
    return [
        user(q),
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "kb_lookup", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": payload},
    ]


def numbered_docs_system(docs, q):
    ctx = "\n".join(f"[{i}] {t}" for i, (_, t) in enumerate(docs, 1))
    return [system(f"Answer the question and cite the documents by number.\n\n{ctx}"), user(q)]


def bold_header_user(docs, q):
    ctx = "\n\n".join(t for _, t in docs)
    return [user(f"**Reference material:**\n{ctx}\n\n**Question:** {q}")]


def multi_turn_rag(docs, q):
    ctx = "\n\n".join(t for _, t in docs)
    return [
        system(f"Documents:\n{ctx}"),
        user("Hi!"),
        {"role": "assistant", "content": "Hello! How can I help?"},
        user(q),
    ]


TEMPLATES = [
    langchain_rag_prompt,
    langchain_stuff_system,
    llamaindex_text_qa,
    haystack_prompt_builder,
    dspy_context,
    anthropic_xml,
    xml_context_system,
    xml_search_results,
    openai_cookbook,
    markdown_headers,
    markdown_fence,
    plain_answer_from_document,
    plain_read_passage,
    plain_summarize,
    content_parts,
    agent_tool_trace,
    agent_json_tool,
    numbered_docs_system,
    bold_header_user,
    multi_turn_rag,
]
SINGLE = {
    openai_cookbook,
    plain_answer_from_document,
    plain_read_passage,
    plain_summarize,
    agent_json_tool,
}

NEGATIVES = [
    [user("hi")],
    [user("Write a haiku about autumn leaves.")],
    [system("You are a helpful assistant."), user("What's a good name for a golden retriever?")],
    [
        user(
            "Why does this fail?\n\n```python\ndef add(a, b):\n    return a + b\n\nprint(add(1))\n```"
        )
    ],
    [user("Translate into French: The meeting is moved to Thursday afternoon.")],
    [system("You are a witty assistant."), user("Tell me a joke about databases.")],
    [user("What is the capital of Australia?")],
    [user("Explain the difference between TCP and UDP in simple terms.")],
    [
        system("You are a coding assistant."),
        user("Write a SQL query that counts orders per customer."),
    ],
    [user("Give me three ideas for a birthday party for a 7-year-old.")],
    [user("Is it better to rent or buy a house? Give me your opinion.")],
    [user("Convert 72 degrees Fahrenheit to Celsius.")],
    [
        system("You are Ava, a friendly travel agent."),
        user("I want to go somewhere warm in December. Suggestions?"),
    ],
    [user("Fix the grammar: me and him goes to the store yesterday.")],
    [
        user(
            "```js\nconst x = [1,2,3].map(n => n * 2);\nconsole.log(x);\n```\nWhat does this print?"
        )
    ],
    [user("Plan a 3-day workout routine for a beginner.")],
]
MISSING = [
    [
        system("Answer only from the provided documents. If the answer is not in them, say so."),
        user("What is the warranty period?"),
    ],
    [
        system("You are a support bot. Use the context below to answer.\n\nContext:\n"),
        user("How do I reset my password?"),
    ],
    [user("Based on the attached report, what was the revenue growth?")],
    [
        system("Answer the question using the retrieved passages and cite them."),
        user("Who discovered radium?"),
    ],
    [
        system("Ground every statement in the provided sources."),
        user("When was TLS 1.3 published?"),
    ],
    [user("According to the document above, when does the lease end?")],
]


def build() -> list[dict]:
    rng = random.Random(15)
    rows = []
    gold_of = {
        content_parts: lambda title, t: (
            f"{title}\n\n{t} (Shared by the user as reference for the question that follows.)"
        )
    }
    for template in TEMPLATES:
        for k in range(5):
            n = 1 if template in SINGLE else rng.choice([1, 2, 3])
            docs = rng.sample(DOCS, n)
            q = QUESTIONS[docs[0][0]]
            rows.append(
                {
                    "id": f"{template.__name__}-{k}",
                    "family": template.__name__,
                    "messages": template(docs, q),
                    # a content part is the document whole, as the user sent it
                    "gold": [gold_of.get(template, lambda _, t: t)(title, t) for title, t in docs],
                    "grounded": "found",
                }
            )
    return rows + ungrounded_rows(NEGATIVES, MISSING)


def ungrounded_rows(negatives: list, missing: list) -> list[dict]:
    """Conversations with no context ("none") and grounded-looking ones without it."""
    rows = []
    for status, family, cases in (("none", "negative", negatives), ("missing", "missing", missing)):
        for i, messages in enumerate(cases):
            rows.append(
                {
                    "id": f"{family}-{i}",
                    "family": family,
                    "messages": messages,
                    "gold": [],
                    "grounded": status,
                }
            )
    return rows


def write(rows: list[dict], out: Path) -> None:
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    print(f"{len(rows)} cases -> {out}")


if __name__ == "__main__":
    write(build(), OUT)
