"""`CurbiMiddleware`: Curbi's check as LangChain 1.x agent middleware (`create_agent(..., middleware=[...])`).

Stream-safe by holding the reply: each model call runs hidden from every callback handler (so from `astream_events`,
`astream_log`, every LangGraph stream mode and user handlers alike; `curbi_langchain.guarded`), its reply is checked,
and only then is it reported, by a chat model run named after the model: a passing reply whole, as one chunk, and a
failing one never: the run ends in `CurbiViolation` (or, with `fallback=`, reports that text instead). The cost is
that a passing reply arrives at once instead of token by token.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Optional

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables.config import ensure_config
from pydantic import PrivateAttr

from . import CurbiGuard, PolicyArg, RecordArg
from .guarded import ChecksBeforeShowing, detach_handlers, hidden_handlers, judged_message

__all__ = ["CurbiMiddleware"]

# langgraph.constants.TAG_NOSTREAM: stream_mode="messages" skips runs with this tag. The reported run carries it so
# that mode keeps emitting the checked reply once, as the model step's output message.
_NOSTREAM = "nostream"


class _Reported(ChecksBeforeShowing):
    """The run handlers see for one model call of the agent: `produce` runs the call hidden and judges it."""

    _produce: Any = PrivateAttr(default=None)
    _model: Any = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "curbi-checked"

    def _get_ls_params(self, stop: Optional[list[str]] = None, **kwargs: Any) -> Any:
        if isinstance(self._model, BaseChatModel):
            return self._model._get_ls_params(stop=stop, **kwargs)
        return super()._get_ls_params(stop=stop, **kwargs)

    def _verdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        return self._produce()  # type: ignore[no-any-return]

    async def _averdict(self, messages: list[BaseMessage], stop: Optional[list[str]], **kwargs: Any) -> AIMessage:
        return await self._produce()  # type: ignore[no-any-return]


def _split(request: ModelRequest) -> tuple[ModelRequest, _Reported]:
    """The request to run hidden (its model without the handlers attached to it) and the run that reports the call
    (named after the model, with those handlers)."""
    model, handlers = detach_handlers(request.model)
    run = _Reported(name=request.model.get_name(), callbacks=handlers or None)
    run._model = request.model
    return (request if model is request.model else request.override(model=model)), run


def _report_args(request: ModelRequest) -> tuple[list[BaseMessage], Any]:
    """What the reporting run is invoked with: the prompt, and the caller's config (so the caller's handlers)."""
    prompt: list[BaseMessage] = [*([request.system_message] if request.system_message else []), *request.messages]
    config = ensure_config()
    return prompt, {**config, "tags": [*(config.get("tags") or []), _NOSTREAM]}


def _shown(response: Any) -> AIMessage:
    """The message a judged response reports: its last AI message (a structured response's is inside)."""
    inner = getattr(response, "model_response", None)
    messages = [response] if isinstance(response, AIMessage) else getattr(inner or response, "result", [])
    ai = [m for m in messages if isinstance(m, AIMessage)]
    return ai[-1].model_copy() if ai else AIMessage(content="")


class CurbiMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Checks every reply the agent's model writes against `policy` before any of it reaches the caller.

    A reply that passes is returned unchanged. One that fails raises `CurbiViolation` (`.findings`, `.check`), or,
    when `fallback` is given, is replaced by an `AIMessage` with that text (the violating text and its tool calls are
    dropped; the findings are in the message's `response_metadata["curbi"]`). Model turns that only call tools carry
    no text and pass.

    No stream or callback handler sees the model's own run; they see a run named after the model that starts with
    the call and, after the check, carries the passing reply whole (one token), or the fallback, or ends in the error.

    `recorder=`, `conversation=` (or `subject=`), `verify=`, `receipt_keys=` and `allow_test=` check each reply
    against the receipts a `curbi.Recorder` signed for that conversation, as `CurbiGuard` does.
    """

    def __init__(
        self,
        policy: PolicyArg,
        record: RecordArg = None,
        version: Optional[str] = None,
        *,
        fallback: Optional[str] = None,
        **receipts: Any,
    ) -> None:
        super().__init__()
        # The guard holds the compiled policy, the record and (with a recorder) where the receipts come from.
        self._guard = CurbiGuard(policy, record, version, **receipts)
        self.policy, self.record, self.version = self._guard.policy, self._guard.record, version
        self.fallback = fallback

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        hidden, run = _split(request)
        judged: list[Any] = []

        def produce() -> AIMessage:
            with hidden_handlers():
                response = handler(hidden)
            judged.append(self._judge(response, self._guard.record_now()))
            return _shown(judged[-1])

        run._produce = produce
        run.invoke(*_report_args(request))
        return judged[-1]

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]
    ) -> Any:
        hidden, run = _split(request)
        judged: list[Any] = []

        async def produce() -> AIMessage:
            with hidden_handlers():
                response = await handler(hidden)
            judged.append(self._judge(response, await self._guard.arecord_now()))
            return _shown(judged[-1])

        run._produce = produce
        await run.ainvoke(*_report_args(request))
        return judged[-1]

    def _judge(self, response: Any, record: Any) -> Any:
        messages = response.result if isinstance(response, ModelResponse) else None
        if isinstance(response, AIMessage):
            messages = [response]
        if messages is None:
            # ExtendedModelResponse: its model_response holds the messages.
            inner = getattr(response, "model_response", None)
            if isinstance(inner, ModelResponse):
                judged = self._judge(inner, record)
                if judged is not inner:
                    response.model_response = judged
                return response
            return response
        replaced = [
            judged_message(self._guard, m, record, self.fallback) if isinstance(m, AIMessage) else m for m in messages
        ]
        if all(a is b for a, b in zip(replaced, messages)):
            return response
        if isinstance(response, AIMessage):
            return replaced[0]
        return ModelResponse(result=replaced, structured_response=response.structured_response)
