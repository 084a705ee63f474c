"""No LangChain event stream carries a token of a blocked reply through `CurbiMiddleware` or a guard that wraps the
model (`curbi_guard(...).wrap(model)`): every event API, sync and async, with and without `fallback=`, for a failing
and a passing reply, with LangChain's own fake chat model streaming word by word. A passing reply (or the fallback)
still reaches the consumer whole. The control runs, with nothing guarding the model, show that each API does carry
the reply's tokens, so each check can see a leak; and that a guard placed after the model (`model | guard`) cannot
hide them, as the docs say."""

import asyncio
import functools
import operator
import warnings
from typing import Any, Callable, NamedTuple, Optional

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tracers.log_stream import RunLog
from langgraph.pregel import Pregel

from curbi_langchain import CurbiMiddleware, CurbiViolation, curbi_guard

POLICY = {"prices": [{"item": "Starter", "amount": 49}]}
# "Quentin" is the canary: a word of the reply outside the sentence with the finding, so no finding or error message
# can carry it; it shows up in an event only if a token of the reply does.
CANARY = "Quentin"
BAD = "The Starter plan costs $99 a month. Shall I open the checkout for you, Quentin?"
GOOD = "The Starter plan costs $49 a month. Shall I open the checkout for you, Quentin?"
FALLBACK = "Let me check that price with a colleague."
ASK = {"messages": [HumanMessage("How much is Starter?")]}


def text_of(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b if isinstance(b, str) else b.get("text", "") for b in content if isinstance(b, (str, dict)))


class Recorder(BaseCallbackHandler):
    """A user's handler: what a chat model run tells it (tokens, the end's text, errors)."""

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.tokens: list[str] = []
        self.ends: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.seen.append(("start", messages))

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.seen.append(("token", token, kwargs.get("chunk")))
        self.tokens.append(token)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        self.seen.append(("end", response))
        self.ends += [g.text for gs in response.generations for g in gs]

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        self.seen.append(("error", type(error).__name__))

    def on_stream_event(self, event: Any, **kwargs: Any) -> None:
        self.seen.append(("stream_event", event))


class AsyncRecorder(AsyncCallbackHandler, Recorder):
    """The same, as an async handler (run on the event loop, in `ainvoke`/`astream`)."""

    async def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        Recorder.on_chat_model_start(self, serialized, messages, **kwargs)

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        Recorder.on_llm_new_token(self, token, **kwargs)

    async def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        Recorder.on_llm_end(self, response, **kwargs)

    async def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        Recorder.on_llm_error(self, error, **kwargs)


# --- What the consumer sees: `seen` is everything an API handed out, `text` the reply as the consumer reads it. ---


class Seen(NamedTuple):
    seen: list[Any]
    text: str
    error: Optional[BaseException]


def fake_model(reply: str, callbacks: Any = None) -> GenericFakeChatModel:
    # Streams word by word (and "Quentin?" as its own token) whenever a caller streams.
    return GenericFakeChatModel(messages=iter([AIMessage(reply)]), callbacks=callbacks)


class Form(NamedTuple):
    """How the model is guarded: `build(reply, fallback, model_callbacks)` gives a runnable and its input."""

    name: str
    build: Callable[..., Any]


def agent_form(guarded: bool) -> Callable[..., Any]:
    def build(reply: str, fallback: Optional[str] = None, model_callbacks: Any = None) -> Any:
        middleware = [CurbiMiddleware(POLICY, fallback=fallback)] if guarded else []
        return create_agent(fake_model(reply, model_callbacks), tools=[], middleware=middleware), ASK

    return build


PROMPT = ChatPromptTemplate.from_messages([("human", "{question}")])


def chain_form(how: str) -> Callable[..., Any]:
    def build(reply: str, fallback: Optional[str] = None, model_callbacks: Any = None) -> Any:
        model = fake_model(reply, model_callbacks)
        if how == "wrap":
            return PROMPT | curbi_guard(POLICY).wrap(model, fallback=fallback) | StrOutputParser(), {"question": "?"}
        if how == "after":
            return PROMPT | model | StrOutputParser() | curbi_guard(POLICY), {"question": "?"}
        return PROMPT | model | StrOutputParser(), {"question": "?"}

    return build


def model_form(guarded: bool) -> Callable[..., Any]:
    """The chat model on its own, called with messages: wrapped, or bare as a control."""

    def build(reply: str, fallback: Optional[str] = None, model_callbacks: Any = None) -> Any:
        model = fake_model(reply, model_callbacks)
        return (curbi_guard(POLICY).wrap(model, fallback=fallback) if guarded else model), [HumanMessage("?")]

    return build


GUARDED = [Form("middleware", agent_form(True)), Form("wrap", chain_form("wrap")), Form("wrapped_model", model_form(True))]
UNGUARDED = [Form("agent", agent_form(False)), Form("chain", chain_form("none")), Form("model", model_form(False))]


def output_text(runnable: Any, chunks: list[Any]) -> str:
    """The reply in what `stream`/`astream` yield: the agent's AI messages (stream_mode "messages"), a chain's str."""
    if isinstance(runnable, Pregel):
        return "".join(
            text_of(m)
            for mode, data in chunks
            if mode == "messages"
            for m in [data[0]]
            if isinstance(m, BaseMessage) and m.type in ("ai", "AIMessageChunk")
        )
    return "".join(c if isinstance(c, str) else text_of(c) for c in chunks if isinstance(c, (str, BaseMessage)))


ALL_MODES = ["messages", "updates", "values", "custom", "debug", "tasks", "checkpoints"]


def stream_kwargs(runnable: Any) -> dict[str, Any]:
    return {"stream_mode": ALL_MODES} if isinstance(runnable, Pregel) else {}


def run_sync(fn: Callable[[], Any]) -> Optional[BaseException]:
    try:
        fn()
    except CurbiViolation as e:
        return e
    return None


def run_async(fn: Callable[[], Any]) -> Optional[BaseException]:
    try:
        asyncio.run(fn())
    except CurbiViolation as e:
        return e
    return None


def api_stream(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    chunks: list[Any] = []
    error = run_sync(lambda: chunks.extend(runnable.stream(inp, **stream_kwargs(runnable))))
    return Seen(chunks, output_text(runnable, chunks), error)


def api_astream(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    chunks: list[Any] = []

    async def go() -> None:
        async for c in runnable.astream(inp, **stream_kwargs(runnable)):
            chunks.append(c)

    error = run_async(go)
    return Seen(chunks, output_text(runnable, chunks), error)


def api_astream_events(version: str) -> Callable[..., Seen]:
    def api(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
        events: list[Any] = []

        async def go() -> None:
            async for e in runnable.astream_events(inp, version=version):
                events.append(e)

        error = run_async(go)
        text = "".join(text_of(e["data"]["chunk"]) for e in events if e["event"] == "on_chat_model_stream")
        return Seen(events, text, error)

    return api


def api_astream_log(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    patches: list[Any] = []

    async def go() -> None:
        async for p in runnable.astream_log(inp):
            patches.append(p)

    error = run_async(go)
    state = functools.reduce(operator.add, patches, RunLog(state=None)).state or {"logs": {}}
    # The chat model runs' streamed output: runs inside the root's, and the root itself when it is the model.
    runs = [*state["logs"].values(), *([state] if state.get("type") == "llm" else [])]
    text = "".join(
        text_of(c) for run in runs if run["type"] == "llm" for c in run["streamed_output"] if isinstance(c, BaseMessage)
    )
    return Seen(patches, text, error)


def events_v3(run: Any) -> list[Any]:
    return list(run)


def api_stream_events_v3(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    events: list[Any] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # v3 is beta; its warning is not what this test is about
        error = run_sync(lambda: events.extend(runnable.stream_events(inp, version="v3")))
    return Seen(events, v3_text(events), error)


def api_astream_events_v3(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    events: list[Any] = []

    async def go() -> None:
        run = await runnable.astream_events(inp, version="v3")
        async for e in run:
            events.append(e)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        error = run_async(go)
    return Seen(events, v3_text(events), error)


def v3_text(events: list[Any]) -> str:
    """The reply in the v3 protocol's `messages` events: the text deltas of a streamed message, or the text of a whole
    AI message (how LangGraph reports a model step's output message that was not streamed token by token)."""
    out = []
    for e in events:
        if isinstance(e, dict) and "event" in e:  # a chat model's own v3 stream: the protocol events, bare
            data: Any = e
        elif isinstance(e, dict) and e.get("method") == "messages":  # a graph's: wrapped in `messages` events
            data = e["params"]["data"]
        else:
            continue
        first = data[0] if isinstance(data, tuple) else data
        if isinstance(first, BaseMessage) and first.type in ("ai", "AIMessageChunk"):
            out.append(text_of(first))
        elif isinstance(first, dict) and first.get("event") == "content-block-delta":
            delta = first.get("delta") or {}
            if delta.get("type") == "text-delta":
                out.append(delta.get("text", ""))
    return "".join(out)


def handler_api(call: str) -> Callable[..., Seen]:
    """A user's handler passed in the call's config: `invoke`, `stream` (a streaming caller) or `ainvoke`."""

    def api(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
        config = {"callbacks": [recorder]}
        if call == "invoke":
            error = run_sync(lambda: runnable.invoke(inp, config))
        elif call == "stream":
            error = run_sync(lambda: list(runnable.stream(inp, config, **stream_kwargs(runnable))))
        elif call == "stream_events_v3":  # the protocol's events also reach handlers (`on_stream_event`)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                error = run_sync(lambda: list(runnable.stream_events(inp, config, version="v3")))
        else:

            async def go() -> None:
                await runnable.ainvoke(inp, config)

            error = run_async(go)
        return Seen(recorder.seen, "".join(recorder.ends), error)

    return api


def api_model_handler(runnable: Any, inp: Any, recorder: Recorder) -> Seen:
    """A handler attached to the model object itself (`ChatX(callbacks=[...])`), with a streaming caller."""
    error = run_sync(lambda: list(runnable.stream(inp, **stream_kwargs(runnable))))
    return Seen(recorder.seen, "".join(recorder.ends), error)


class Api(NamedTuple):
    name: str
    run: Callable[..., Seen]
    recorder: Callable[[], Recorder] = Recorder
    on_model: bool = False  # the recorder goes on the model object


APIS = [
    Api("stream", api_stream),
    Api("astream", api_astream),
    Api("astream_events_v1", api_astream_events("v1")),
    Api("astream_events_v2", api_astream_events("v2")),
    Api("astream_log", api_astream_log),
    Api("stream_events_v3", api_stream_events_v3),
    Api("astream_events_v3", api_astream_events_v3),
    Api("handler_invoke", handler_api("invoke")),
    Api("handler_stream", handler_api("stream")),
    Api("handler_stream_events_v3", handler_api("stream_events_v3")),
    Api("async_handler_ainvoke", handler_api("ainvoke"), AsyncRecorder),
    Api("handler_on_model", api_model_handler, on_model=True),
]


def supported(form: Form, api: Api) -> bool:
    # The v3 protocol exists on graphs (the agent) and chat models, not on an LCEL chain.
    return not (api.name.endswith("_v3") and form.name in ("wrap", "chain", "after"))


def observe(form: Form, api: Api, reply: str, fallback: Optional[str] = None) -> Seen:
    recorder = api.recorder()
    runnable, inp = form.build(reply, fallback, [recorder] if api.on_model else None)
    return api.run(runnable, inp, recorder)


CASES = [
    pytest.param(form, api, id=f"{form.name}-{api.name}") for form in GUARDED for api in APIS if supported(form, api)
]


@pytest.mark.parametrize("form,api", CASES)
def test_a_failing_reply_leaves_no_token_in_the_stream(form: Form, api: Api) -> None:
    got = observe(form, api, BAD)
    assert isinstance(got.error, CurbiViolation)
    assert [f.rule for f in got.error.findings] == ["price:mismatch"]
    assert CANARY not in repr(got.seen)
    assert "$99" not in got.text and got.text == ""


@pytest.mark.parametrize("form,api", CASES)
def test_with_fallback_the_stream_carries_only_the_fallback(form: Form, api: Api) -> None:
    got = observe(form, api, BAD, FALLBACK)
    assert got.error is None
    assert CANARY not in repr(got.seen) and "$99" not in repr(got.seen)
    assert got.text == FALLBACK


@pytest.mark.parametrize("form,api", CASES)
def test_a_passing_reply_reaches_the_consumer_whole(form: Form, api: Api) -> None:
    got = observe(form, api, GOOD)
    assert got.error is None
    assert got.text == GOOD


AFTER = Form("after", chain_form("after"))
CONTROLS = [
    pytest.param(form, api, id=f"{form.name}-{api.name}")
    for form in [*UNGUARDED, AFTER]
    for api in APIS
    # After the model, the guard does hold the chain's own output (`stream`/`astream`): not a control.
    if supported(form, api) and not (form is AFTER and api.name in ("stream", "astream"))
]


@pytest.mark.parametrize("form,api", CONTROLS)
def test_control_unguarded_or_guarded_after_the_model_the_tokens_do_show(form: Form, api: Api) -> None:
    # The same APIs see the failing reply when nothing wraps the model: the checks above can see a leak. A guard
    # after the model (`model | parser | guard`) raises, but only after the model's own events went out.
    got = observe(form, api, BAD)
    assert CANARY in repr(got.seen), api.name
    assert isinstance(got.error, CurbiViolation) == (form.name == "after")


def test_handlers_see_the_passing_reply_as_one_token_after_the_verdict() -> None:
    # What a streaming caller's handler sees under the middleware: the run starts, then the whole reply as one
    # token, then the end; for a failing one: the start and the error, nothing else.
    for form in GUARDED:
        got = observe(form, Api("handler_stream", handler_api("stream")), GOOD)
        kinds = [s[0] for s in got.seen]
        assert kinds[0] == "start" and kinds[-1] == "end", (form.name, kinds)
        tokens = [s[1] for s in got.seen if s[0] == "token" and s[1]]
        assert tokens == [GOOD], form.name
        got = observe(form, Api("handler_stream", handler_api("stream")), BAD)
        assert [s[0] for s in got.seen] == ["start", "error"], form.name


class ToolCallingFake(GenericFakeChatModel):
    """LangChain's fake chat model, accepting tools (it replies with the tool calls it is given)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def test_a_wrapped_model_in_an_agent_calls_tools_and_its_failing_reply_never_streams() -> None:
    from langchain_core.tools import tool

    @tool
    def price(item: str) -> str:
        """The price of a plan."""
        return "$49"

    for reply, raises in [(BAD, True), (GOOD, False)]:
        call = AIMessage("", tool_calls=[{"name": "price", "args": {"item": "Starter"}, "id": "c1"}])
        model = ToolCallingFake(messages=iter([call, AIMessage(reply)]))
        agent = create_agent(curbi_guard(POLICY).wrap(model), tools=[price])
        chunks: list[Any] = []
        error = run_sync(lambda: chunks.extend(agent.stream(ASK, stream_mode=["messages", "updates"])))
        assert isinstance(error, CurbiViolation) == raises
        # The turn that only calls a tool passed, its call intact, and the tool ran.
        tools_ran = [d for mode, d in chunks if mode == "updates" and "tools" in d]
        assert [m.content for m in tools_ran[0]["tools"]["messages"]] == ["$49"]
        assert (CANARY in repr(chunks)) == (not raises)
        assert output_text(agent, chunks) == ("" if raises else GOOD)


USAGE = {"input_tokens": 3, "output_tokens": 17, "total_tokens": 20}


def metered_model(reply: str) -> GenericFakeChatModel:
    # A reply that says what it cost, as a provider's does (the usage callback counts it by model name).
    message = AIMessage(reply, usage_metadata=USAGE, response_metadata={"model_name": "fake-1"})
    return GenericFakeChatModel(messages=iter([message]))


@pytest.mark.parametrize("how", ["middleware", "wrap"])
@pytest.mark.parametrize("call", ["invoke", "stream", "ainvoke", "astream"])
@pytest.mark.parametrize("reply,fallback", [(GOOD, None), (BAD, None), (BAD, FALLBACK)], ids=["pass", "fail", "fallback"])
def test_each_model_call_is_metered_once_a_blocked_one_included(
    how: str, call: str, reply: str, fallback: Optional[str]
) -> None:
    # The guarded run only reports the model's reply; the model's own run is the one that spent the tokens. Token
    # counters (`get_usage_metadata_callback`, tracing) see that run, so they count each call once, blocked or not.
    from langchain_core.callbacks import get_usage_metadata_callback

    model = metered_model(reply)
    if how == "middleware":
        runnable: Any = create_agent(model, tools=[], middleware=[CurbiMiddleware(POLICY, fallback=fallback)])
        inp: Any = ASK
    else:
        runnable, inp = curbi_guard(POLICY).wrap(model, fallback=fallback), [HumanMessage("?")]

    async def drain() -> None:
        if call == "ainvoke":
            await runnable.ainvoke(inp)
        else:
            async for _ in runnable.astream(inp):
                pass

    got: list[Any] = []
    with get_usage_metadata_callback() as counter:
        if call in ("invoke", "stream"):
            run_sync(lambda: got.append(runnable.invoke(inp) if call == "invoke" else list(runnable.stream(inp))))
        else:
            run_async(drain)
    assert counter.usage_metadata == {"fake-1": USAGE}
    if how == "middleware" and call == "invoke" and reply == GOOD:
        # The agent's state keeps the model's message as it was, its usage included.
        assert got[0]["messages"][-1].usage_metadata == USAGE
