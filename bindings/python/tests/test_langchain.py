"""The LangChain guard with real langchain-core: the seed snippet, LCEL with a fake chat model, async and batch."""

import asyncio

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate

from curbi_langchain import CurbiViolation, curbi_guard


def test_seed_snippet_verbatim():
    # Seed 000's Python sample, line for line.
    from curbi_langchain import curbi_guard

    policy = {"prices": [{"item": "Starter", "amount": 49}]}
    guard = curbi_guard(policy=policy)
    with pytest.raises(CurbiViolation) as e:
        guard.invoke("Starter costs $99.")  # Raises on the price mismatch.
    assert [f.rule for f in e.value.findings] == ["price:mismatch"]
    assert e.value.check.passed is False


def test_a_passing_reply_comes_back_unchanged():
    guard = curbi_guard(policy={"prices": [{"item": "Starter", "amount": 49}]})
    reply = "Starter costs $49."
    assert guard.invoke(reply) is reply
    msg = AIMessage(content="Starter costs $49.")
    assert guard.invoke(msg) is msg


def test_message_lists_check_the_last_message():
    guard = curbi_guard(policy={"prices": [{"item": "Starter", "amount": 49}]})
    history = [HumanMessage(content="Is Starter $99?"), AIMessage(content="No, Starter is $49.")]
    assert guard.invoke(history) is history
    with pytest.raises(CurbiViolation):
        guard.invoke([AIMessage(content="Starter is $49."), AIMessage(content="Sorry, Starter is $99.")])
    with pytest.raises(TypeError):
        guard.invoke(42)


def chain(reply: str, **guard_args):
    prompt = ChatPromptTemplate.from_messages([("human", "{question}")])
    model = FakeListChatModel(responses=[reply])
    return prompt | model | StrOutputParser() | curbi_guard(**guard_args)


POLICY = {
    "prices": [{"item": "Pro", "amount": 49}],
    "forbid": [{"id": "guarantee", "phrases": ["guarantee"]}],
    "actions": {"refunded": "billing.refund"},
}
BAD = "Done! I've refunded you, Pro is just $29, and we guarantee it."
GOOD = "Pro is $49 a month."


def test_lcel_invoke():
    assert chain(GOOD, policy=POLICY).invoke({"question": "price?"}) == GOOD
    with pytest.raises(CurbiViolation) as e:
        chain(BAD, policy=POLICY).invoke({"question": "refund?"})
    assert [f.rule for f in e.value.findings] == ["action:unrecorded", "price:mismatch", "forbid:guarantee"]


def test_lcel_ainvoke():
    async def run():
        assert await chain(GOOD, policy=POLICY).ainvoke({"question": "price?"}) == GOOD
        with pytest.raises(CurbiViolation):
            await chain(BAD, policy=POLICY).ainvoke({"question": "refund?"})

    asyncio.run(run())


def test_lcel_batch_and_abatch():
    c = chain(BAD, policy=POLICY)
    with pytest.raises(CurbiViolation):
        c.batch([{"question": "a"}, {"question": "b"}])
    out = c.batch([{"question": "a"}], return_exceptions=True)
    assert isinstance(out[0], CurbiViolation)
    guard = curbi_guard(policy=POLICY)
    assert guard.batch([GOOD, BAD], return_exceptions=True)[0] == GOOD

    async def run():
        res = await guard.abatch([GOOD, BAD], return_exceptions=True)
        assert res[0] == GOOD and isinstance(res[1], CurbiViolation)

    asyncio.run(run())


def test_record_makes_a_claimed_refund_pass():
    record = {"effects": [{"operation": "billing.refund", "status": "DONE"}]}
    guard = curbi_guard(policy=POLICY, record=record)
    assert guard.invoke("I've refunded you.") == "I've refunded you."


def test_ainvoke_runs_inline_without_an_executor(monkeypatch):
    guard = curbi_guard(policy=POLICY)

    async def run():
        loop = asyncio.get_running_loop()

        def no_executor(*args, **kwargs):
            raise AssertionError("the guard must not hop to an executor")

        monkeypatch.setattr(loop, "run_in_executor", no_executor)
        assert await guard.ainvoke(GOOD) == GOOD

    asyncio.run(run())
