"""`CurbiMiddleware`: Curbi's check as LangChain 1.x agent middleware (`create_agent(..., middleware=[...])`).

Stream-safe by buffering: while the model runs, its tokens are kept out of the agent's `stream_mode="messages"`
stream (the model call carries LangGraph's `nostream` tag, the tag LangGraph's own middleware uses for calls whose
tokens must not reach the caller). When the reply is complete it is checked; a passing reply then reaches the stream
whole, as one message, when the model step ends, and a failing one never does: it raises `CurbiViolation` (or, with
`fallback=`, is replaced by that text). The cost is that a passing reply arrives at once instead of token by token.
"""

from __future__ import annotations

import contextlib
from typing import Any, Awaitable, Callable, Iterator, Optional

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage
from langchain_core.runnables.config import ensure_config, var_child_runnable_config

from . import CurbiGuard, CurbiViolation, PolicyArg, RecordArg, _text_of

__all__ = ["CurbiMiddleware"]

# langgraph.constants.TAG_NOSTREAM: runs with this tag are not streamed in stream_mode="messages".
_NOSTREAM = "nostream"


@contextlib.contextmanager
def _tokens_held() -> Iterator[None]:
    """Runs the enclosed model call with the `nostream` tag added to the config it inherits."""
    config = ensure_config()
    tags = list(config.get("tags") or [])
    token = var_child_runnable_config.set({**config, "tags": [*tags, _NOSTREAM]})
    try:
        yield
    finally:
        var_child_runnable_config.reset(token)


class CurbiMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Checks every reply the agent's model writes against `policy` before any of it reaches the caller.

    A reply that passes is returned unchanged. One that fails raises `CurbiViolation` (`.findings`, `.check`), or,
    when `fallback` is given, is replaced by an `AIMessage` with that text (the violating text and its tool calls are
    dropped; the findings are in the message's `response_metadata["curbi"]`). Model turns that only call tools carry
    no text and pass.

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

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Any]
    ) -> Any:
        with _tokens_held():
            response = handler(request)
        return self._judge(response, self._guard.record_now())

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[Any]]
    ) -> Any:
        with _tokens_held():
            response = await handler(request)
        return self._judge(response, await self._guard.arecord_now())

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
        replaced = list(messages)
        for i, message in enumerate(messages):
            if not isinstance(message, AIMessage):
                continue
            text = _text_of(message)
            if not text:
                continue
            result = self._guard.check_text(text, record)
            if result.passed:
                continue
            if self.fallback is None:
                raise CurbiViolation(result)
            replaced[i] = AIMessage(
                content=self.fallback,
                id=message.id,
                name=message.name,
                response_metadata={"curbi": {"passed": False, "findings": [f.rule for f in result.findings]}},
            )
        if replaced == messages:
            return response
        if isinstance(response, AIMessage):
            return replaced[0]
        return ModelResponse(result=replaced, structured_response=response.structured_response)
