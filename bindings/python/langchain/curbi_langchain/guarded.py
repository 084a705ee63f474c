"""Keeps a chat model's reply out of every LangChain event stream and callback handler until Curbi has checked it:
`CurbiGuardedChatModel` (what `curbi_guard(...).wrap(model)` returns) and the machinery `CurbiMiddleware` shares.

How: the real model runs with no callback handler of the caller attached (`hidden_handlers`), so neither
`astream_events` (v1, v2, v3), `astream_log`, LangGraph's stream modes nor a user's handler sees its start, tokens or
end. The checked reply is then reported by a chat model run of our own (`ChecksBeforeShowing`): it starts when the
call starts, and only after the verdict emits the reply (whole, as one chunk) and ends, or ends in `CurbiViolation`
with no token at all. Handlers attached to the model object itself are moved onto that run (`detach_handlers`).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, AsyncIterator, Iterator, Optional, Union

from langchain_core.caches import BaseCache
from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.runnables.config import ensure_config, var_child_runnable_config
from pydantic import Field, model_validator

from . import CurbiGuard, CurbiViolation, _text_of

__all__ = ["CurbiGuardedChatModel"]


@contextlib.contextmanager
def hidden_handlers() -> Iterator[None]:
    """Runs the enclosed calls with the config they inherit minus its callback handlers: nothing the caller attached
    (event streams, LangGraph's stream handlers, its own handlers) sees them. Tags, metadata and `configurable`
    (LangGraph's runtime) are kept."""
    config = ensure_config()
    token = var_child_runnable_config.set({**config, "callbacks": None})
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


def _handlers_of(callbacks: Any) -> list[BaseCallbackHandler]:
    if callbacks is None:
        return []
    if isinstance(callbacks, BaseCallbackManager):
        return list(callbacks.handlers)
    return list(callbacks)


def detach_handlers(model: Any) -> tuple[Any, list[BaseCallbackHandler]]:
    """`model` without the handlers attached to it (`ChatX(callbacks=[...])`, `.with_config(callbacks=[...])`), and
    those handlers: they would see the hidden run's tokens, so they go on the checked run instead."""
    if isinstance(model, BaseChatModel) and model.callbacks:
        return model.model_copy(update={"callbacks": None}), _handlers_of(model.callbacks)
    if isinstance(model, RunnableBinding):
        bound, handlers = detach_handlers(model.bound)
        own = _handlers_of(model.config.get("callbacks"))
        if bound is model.bound and not own:
            return model, []
        config = {k: v for k, v in model.config.items() if k != "callbacks"}
        return model.model_copy(update={"bound": bound, "config": config}), [*own, *handlers]
    return model, []


def fallback_message(message: AIMessage, result: Any, fallback: str) -> AIMessage:
    """What replaces a failing reply when `fallback=` is given: that text, no tool calls, the findings in metadata."""
    return AIMessage(
        content=fallback,
        id=message.id,
        name=message.name,
        response_metadata={"curbi": {"passed": False, "findings": [f.rule for f in result.findings]}},
    )


def judged_message(guard: CurbiGuard, message: AIMessage, record: Any, fallback: Optional[str]) -> AIMessage:
    """`message` when it passes (or carries no text, as a turn that only calls tools); else `CurbiViolation`, or the
    fallback message."""
    text = _text_of(message)
    if not text:
        return message
    result = guard.check_text(text, record)
    if result.passed:
        return message
    if fallback is None:
        raise CurbiViolation(result)
    return fallback_message(message, result, fallback)


def chunk_of(message: AIMessage) -> AIMessageChunk:
    """The whole reply as the one chunk a stream emits: text, tool calls (arguments as JSON text), ids, metadata;
    no `usage_metadata` (`reported`)."""
    chunks = [
        tool_call_chunk(name=call["name"], args=json.dumps(call["args"]), id=call.get("id"), index=i)
        for i, call in enumerate(message.tool_calls)
    ]
    start = len(chunks)
    chunks += [
        tool_call_chunk(name=bad.get("name"), args=bad.get("args"), id=bad.get("id"), index=start + i)
        for i, bad in enumerate(message.invalid_tool_calls)
    ]
    return AIMessageChunk(
        content=message.content,
        additional_kwargs=dict(message.additional_kwargs),
        response_metadata=dict(message.response_metadata),
        id=message.id,
        name=message.name,
        tool_call_chunks=chunks,
        chunk_position="last",
    )


def reported(message: AIMessage) -> AIMessage:
    """`message` as the checked run reports it: without `usage_metadata`. The model's own run, which token counters
    (`get_usage_metadata_callback`, tracing) still see, carries what the call cost; the report spent nothing, and
    repeating the usage there would count every call twice."""
    return message.model_copy(update={"usage_metadata": None}) if message.usage_metadata else message


class ChecksBeforeShowing(BaseChatModel):
    """A chat model run that reports only a checked reply: `_verdict` produces it (running the real model hidden);
    a streaming caller gets it whole, as one chunk, after the verdict; a failing one ends the run in an error. The
    report carries no `usage_metadata` (`reported`)."""

    # A cached answer would skip the check (and the receipts it reads may have changed since): never cache.
    cache: Union[BaseCache, bool, None] = Field(default=False, exclude=True)

    def _verdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        raise NotImplementedError

    async def _averdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        raise NotImplementedError

    def _generate(
        self, messages: list[BaseMessage], stop: Optional[list[str]] = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=reported(self._verdict(messages, stop, **kwargs)))])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Optional[list[str]] = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        reply = await self._averdict(messages, stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=reported(reply))])

    def _stream(
        self, messages: list[BaseMessage], stop: Optional[list[str]] = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        yield ChatGenerationChunk(message=chunk_of(self._verdict(messages, stop, **kwargs)))

    async def _astream(
        self, messages: list[BaseMessage], stop: Optional[list[str]] = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        yield ChatGenerationChunk(message=chunk_of(await self._averdict(messages, stop, **kwargs)))


def _as_ai_message(reply: Any) -> AIMessage:
    if isinstance(reply, AIMessage):
        return reply
    raise TypeError(f"a guarded model must return an AIMessage, not {type(reply).__name__}")


class CurbiGuardedChatModel(ChecksBeforeShowing):
    """A chat model that checks every reply of `model` with `guard` before any of it is seen (`curbi_guard(...)
    .wrap(model)`): use it where the model would go (`prompt | guarded | parser`, `create_agent(guarded, ...)`).

    A reply that passes is returned unchanged, and a streaming caller gets it whole, as one chunk; one that fails
    raises `CurbiViolation`, or with `fallback` is replaced by an `AIMessage` with that text (tool calls dropped, the
    findings in `response_metadata["curbi"]`). No event stream, log or callback handler sees a token of a failing
    reply: the model's own run is hidden from them, and handlers attached to `model` itself are moved onto this one.
    Its replies carry no `usage_metadata`: the model's own run, which `get_usage_metadata_callback` and tracing
    still see, reports what each call cost, once, blocked calls included.
    """

    model: Runnable[Any, Any]
    guard: CurbiGuard
    fallback: Optional[str] = None

    @model_validator(mode="before")
    @classmethod
    def _move_model_handlers(cls, data: Any) -> Any:
        if isinstance(data, dict) and "model" in data:
            model, handlers = detach_handlers(data["model"])
            if handlers:
                data = {**data, "model": model, "callbacks": [*_handlers_of(data.get("callbacks")), *handlers]}
        return data

    @property
    def _llm_type(self) -> str:
        return "curbi-guarded"

    def _get_ls_params(self, stop: Optional[list[str]] = None, **kwargs: Any) -> Any:
        # Tracing metadata (provider, model name) is the wrapped model's.
        inner = self.model.bound if isinstance(self.model, RunnableBinding) else self.model
        if isinstance(inner, BaseChatModel):
            return inner._get_ls_params(stop=stop, **kwargs)
        return super()._get_ls_params(stop=stop, **kwargs)

    def bind_tools(self, tools: Any, *, tool_choice: Optional[str] = None, **kwargs: Any) -> Runnable[Any, Any]:
        """The wrapped model's tools bound, still guarded."""
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.model_copy(update={"model": self.model.bind_tools(tools, **kwargs)})  # type: ignore[attr-defined]

    def _verdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        if stop is not None:
            kwargs["stop"] = stop
        with hidden_handlers():
            reply = _as_ai_message(self.model.invoke(messages, **kwargs))
        return judged_message(self.guard, reply, self.guard.record_now(), self.fallback)

    async def _averdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        if stop is not None:
            kwargs["stop"] = stop
        with hidden_handlers():
            reply = _as_ai_message(await self.model.ainvoke(messages, **kwargs))
        return judged_message(self.guard, reply, await self.guard.arecord_now(), self.fallback)
