"""LangChain, LlamaIndex and LiteLLM integrations: a fake OpenAI-compatible LLM writes the
answer, the live server and a real worker verify it."""

from __future__ import annotations

import asyncio

import litellm
import openai
import pytest
from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeWithScore, TextNode
from truthlens.integrations.langchain import TruthLensVerifier
from truthlens.integrations.litellm import TruthLensFlagged, TruthLensGuardrail
from truthlens.integrations.llama_index import TruthLensEvaluator

from tests.fixtures.examples import EIFFEL

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
WRONG = "The Eiffel Tower was built in 1950."
RIGHT = "The Eiffel Tower was built from 1887 to 1889."


def _llm(fake):
    """A chat model runnable on the fake server, through the official OpenAI client."""
    client = openai.OpenAI(base_url=fake.api_base, api_key="sk-test", max_retries=0)

    def call(prompt_value):
        roles = {"human": "user", "ai": "assistant", "system": "system"}
        messages = [
            {"role": roles[m.type], "content": m.content} for m in prompt_value.to_messages()
        ]
        reply = client.chat.completions.create(model="primary", messages=messages)
        return reply.choices[0].message.content

    return RunnableLambda(call)


def test_langchain_chain_gets_the_verdict_of_its_answer(worker_server, client, fake_llm):
    # given a RAG chain: retriever -> prompt -> (fake) LLM -> TruthLens
    retriever = RunnableLambda(lambda q: [Document(page_content=p) for p in EIFFEL.context])
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from this context:\n{context}"), ("human", "{question}")]
    )
    chain = (
        RunnableParallel(context=retriever, question=RunnablePassthrough())
        | RunnablePassthrough.assign(answer=prompt | _llm(fake_llm) | StrOutputParser())
        | TruthLensVerifier(client=client)
    )
    fake_llm.script(WRONG, RIGHT)
    # when
    wrong = chain.invoke(EIFFEL.query)
    right = asyncio.run(chain.ainvoke(EIFFEL.query))
    # then the answer is unchanged and the verdict is added
    assert wrong["answer"] == WRONG
    assert wrong["verification"].detected is True
    assert [s.text for s in wrong["verification"].spans] == ["1950"]
    assert right["verification"].detected is False
    # the LLM saw the retrieved documents
    assert "1887 to 1889" in fake_llm.requests[0]["messages"][0]["content"]


def test_llama_index_evaluator_passes_or_fails_a_response_with_spans(worker_server, fake_llm):
    # given a Response written by the (fake) LLM, with the passages it came from
    fake_llm.script(WRONG)
    answer = (
        openai.OpenAI(base_url=fake_llm.api_base, api_key="sk-test")
        .chat.completions.create(
            model="primary", messages=[{"role": "user", "content": EIFFEL.query}]
        )
        .choices[0]
        .message.content
    )
    nodes = [NodeWithScore(node=TextNode(text=p), score=1.0) for p in EIFFEL.context]
    evaluator = TruthLensEvaluator(api_key=worker_server.tenant.token, base_url=worker_server.url)
    # when
    failed = evaluator.evaluate_response(
        query=EIFFEL.query, response=Response(response=answer, source_nodes=nodes)
    )
    passed = evaluator.evaluate(query=EIFFEL.query, response=RIGHT, contexts=list(EIFFEL.context))
    # then
    assert failed.passing is False
    assert [s.text for s in failed.spans] == ["1950"]
    assert failed.spans[0].label == "contradiction"
    assert "1950" in failed.feedback
    assert failed.contexts == list(EIFFEL.context)
    assert passed.passing is True
    assert passed.score > failed.score


def test_litellm_guardrail_checks_the_completion_after_the_call(worker_server, fake_llm):
    # given a LiteLLM completion from the (fake) upstream, with the context in the system prompt
    system = "Answer using only these documents.\nDocuments:\n" + "\n".join(
        f"[{i}] {p}" for i, p in enumerate(EIFFEL.context, start=1)
    )
    data = {
        "model": "openai/primary",
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": EIFFEL.query},
        ],
    }

    async def call(reply: str, on_flagged: str):
        fake_llm.script(reply)
        response = await litellm.acompletion(**data, api_base=fake_llm.api_base, api_key="sk-test")
        guardrail = TruthLensGuardrail(
            api_key=worker_server.tenant.token,
            api_base=worker_server.url,
            on_flagged=on_flagged,
            guardrail_name="truthlens",
            default_on=True,
        )
        return await guardrail.async_post_call_success_hook(data, None, response)

    # when a right answer passes, annotated with the verdict
    passed = asyncio.run(call(RIGHT, "block"))
    assert passed.choices[0].message.content == RIGHT
    assert passed._hidden_params["additional_headers"]["x-truthlens-detected"] == "false"
    # and a wrong one is blocked with its span
    with pytest.raises(TruthLensFlagged) as flagged:
        asyncio.run(call(WRONG, "block"))
    assert [s.text for s in flagged.value.verification.spans] == ["1950"]
