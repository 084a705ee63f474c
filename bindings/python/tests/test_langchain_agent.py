"""CurbiMiddleware in a real LangChain 1.x agent (`create_agent`) with a fake chat model that streams its reply word
by word: a failing reply is blocked in invoke, ainvoke, stream and astream with none of its tokens streamed; a passing
one comes back unchanged. The control test shows the same agent without the middleware does stream the tokens."""

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage

from curbi_langchain import CurbiMiddleware, CurbiViolation, curbi_guard

POLICY = {"prices": [{"item": "Starter", "amount": 49}]}
BAD = "Sure! The Starter plan costs $99 a month, billed monthly."
GOOD = "Sure! The Starter plan costs $49 a month, billed monthly."
ASK = {"messages": [HumanMessage("How much is Starter?")]}


def agent(reply, **middleware_options):
    model = GenericFakeChatModel(messages=iter([AIMessage(reply)]))
    middleware = [] if middleware_options.get("none") else [CurbiMiddleware(POLICY, fallback=middleware_options.get("fallback"))]
    return create_agent(model, tools=[], middleware=middleware)


def ai_text(chunks):
    """The AI text streamed in stream_mode="messages": (message, metadata) pairs."""
    return "".join(m.text for m, _ in chunks if isinstance(m, (AIMessage, AIMessageChunk)))


def collect(stream):
    chunks, error = [], None
    try:
        for c in stream:
            chunks.append(c)
    except CurbiViolation as e:
        error = e
    return chunks, error


async def acollect(stream):
    chunks, error = [], None
    try:
        async for c in stream:
            chunks.append(c)
    except CurbiViolation as e:
        error = e
    return chunks, error


def test_control_without_middleware_tokens_do_stream():
    chunks, error = collect(agent(BAD, none=True).stream(ASK, stream_mode="messages"))
    assert error is None
    assert len(chunks) > 3  # word by word
    assert "$99" in ai_text(chunks)


def test_invoke_blocks_a_failing_reply_and_passes_a_good_one():
    with pytest.raises(CurbiViolation) as e:
        agent(BAD).invoke(ASK)
    assert [f.rule for f in e.value.findings] == ["price:mismatch"]
    state = agent(GOOD).invoke(ASK)
    assert state["messages"][-1].content == GOOD


def test_ainvoke_blocks_a_failing_reply_and_passes_a_good_one():
    with pytest.raises(CurbiViolation):
        asyncio.run(agent(BAD).ainvoke(ASK))
    state = asyncio.run(agent(GOOD).ainvoke(ASK))
    assert state["messages"][-1].content == GOOD


def test_stream_messages_never_shows_a_token_of_a_failing_reply():
    chunks, error = collect(agent(BAD).stream(ASK, stream_mode="messages"))
    assert isinstance(error, CurbiViolation)
    assert ai_text(chunks) == ""
    chunks, error = collect(agent(GOOD).stream(ASK, stream_mode="messages"))
    assert error is None
    assert ai_text(chunks) == GOOD  # whole, once it passed
    for mode in ("updates", "values"):
        chunks, error = collect(agent(BAD).stream(ASK, stream_mode=mode))
        assert isinstance(error, CurbiViolation) and "$99" not in repr(chunks), mode


def test_astream_messages_never_shows_a_token_of_a_failing_reply():
    chunks, error = asyncio.run(acollect(agent(BAD).astream(ASK, stream_mode="messages")))
    assert isinstance(error, CurbiViolation)
    assert ai_text(chunks) == ""
    chunks, error = asyncio.run(acollect(agent(GOOD).astream(ASK, stream_mode="messages")))
    assert error is None
    assert ai_text(chunks) == GOOD


def test_fallback_replaces_the_failing_reply():
    fallback = "Let me check that price with a colleague."
    chunks, error = collect(agent(BAD, fallback=fallback).stream(ASK, stream_mode="messages"))
    assert error is None
    assert ai_text(chunks) == fallback
    state = agent(BAD, fallback=fallback).invoke(ASK)
    last = state["messages"][-1]
    assert last.content == fallback
    assert last.response_metadata["curbi"]["findings"] == ["price:mismatch"]


def test_runnable_guard_takes_an_agent_state():
    guard = curbi_guard(policy=POLICY)
    chain = agent(BAD, none=True) | guard
    with pytest.raises(CurbiViolation):
        chain.invoke(ASK)
    state = (agent(GOOD, none=True) | guard).invoke(ASK)
    assert state["messages"][-1].content == GOOD
