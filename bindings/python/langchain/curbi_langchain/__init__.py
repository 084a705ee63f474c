"""A LangChain guard: checks an agent's reply with Curbi and raises `CurbiViolation` when a rule fires.

Two forms: `curbi_guard(policy)`, a Runnable for LCEL chains (`prompt | model | parser | guard`) and for an agent's
final state (`agent | guard`); and `CurbiMiddleware(policy)` for LangChain 1.x `create_agent(middleware=[...])`,
which checks each model reply inside the agent and keeps a failing reply out of every stream mode
(`curbi_langchain.middleware`; needs the `langchain` package, `pip install curbi-langchain[agents]`).
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Sequence, Union

import curbi
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import get_config_list

__all__ = ["CurbiGuard", "CurbiGuardedChatModel", "CurbiMiddleware", "CurbiViolation", "curbi_guard"]


def __getattr__(name: str) -> Any:
    # Imported on first use: the middleware needs `langchain` (1.x), the Runnable guard only `langchain-core`.
    if name == "CurbiMiddleware":
        from .middleware import CurbiMiddleware

        return CurbiMiddleware
    if name == "CurbiGuardedChatModel":
        from .guarded import CurbiGuardedChatModel

        return CurbiGuardedChatModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The reply broke the policy: `.findings` lists what fired, `.check` is the whole result. A `curbi.CurbiError`.
CurbiViolation = curbi.CurbiViolation


# What a guard is given: a policy (a dict, JSON str or compiled `curbi.Policy`) and an optional record.
PolicyArg = Union[curbi.Policy, Mapping[str, Any], str]
RecordArg = Optional[Union[curbi.Record, Mapping[str, Any], str]]


def _compiled(policy: PolicyArg, record: RecordArg) -> "tuple[curbi.Policy, Optional[curbi.Record]]":
    """The policy compiled and the record read, once: a record re-read per call costs more than the check itself."""
    compiled = policy if isinstance(policy, curbi.Policy) else curbi.Policy.compile(policy)
    read = record if record is None or isinstance(record, curbi.Record) else curbi.Record.parse(record)
    return compiled, read


def _text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    # Content blocks: the text blocks, in order.
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "".join(parts)


class CurbiGuard(Runnable[Any, Any]):
    """Returns its input when the reply passes the policy; raises `CurbiViolation` when it does not.

    Streaming buffers: `stream`/`astream` (and a guard at the end of a streaming chain) collect the whole input
    before checking it, so nothing streams through the guard until the reply is complete and has passed; then it is
    emitted as one chunk. For token streaming inside an agent, use `CurbiMiddleware`, which holds tokens the same way
    inside the model step.

    With a `recorder` and the `conversation` (or `subject`) the agent acts in, each reply is checked against the
    receipts that recorder signed for it (docs/CHECKER.md, Receipts): "I've refunded you $500" fails when the signed
    receipt says $50. The receipt keys are the recorder's own (`recorder.keys()`, read once here) unless
    `receipt_keys` pins others; `verify="required"` lets only signed receipts back a claimed action.
    """

    def __init__(
        self,
        policy: PolicyArg,
        record: RecordArg = None,
        version: Optional[str] = None,
        *,
        recorder: Optional[curbi.Recorder] = None,
        conversation: Optional[str] = None,
        subject: Optional[str] = None,
        verify: Optional[str] = None,
        receipt_keys: Optional[Mapping[str, Any]] = None,
        allow_test: bool = False,
    ) -> None:
        self.version = version
        self.verify = verify
        self.recorder = recorder
        self._about: Optional[dict[str, str]] = None
        self._record_doc: Optional[dict[str, Any]] = None
        if recorder is None:
            if conversation is not None or subject is not None:
                raise ValueError("conversation and subject name what a recorder's receipts are about: pass recorder")
            self.policy, self.record = _compiled(policy, record)
            return
        if (conversation is None) == (subject is None):
            raise ValueError("with a recorder, name the conversation or the subject whose receipts back the replies")
        self._about = {"conversation": conversation} if conversation is not None else {"subject": subject or ""}
        if isinstance(policy, curbi.Policy):
            self.policy = policy  # compiled by the caller, with the receipt keys it chose
        else:
            keys = dict(receipt_keys) if receipt_keys is not None else recorder.keys()
            self.policy = curbi.Policy.compile(policy, receipts={"keys": keys, "allowTest": allow_test})
        if isinstance(record, curbi.Record):
            raise TypeError("with a recorder, pass the record as a dict or JSON str: its receipts are added per reply")
        doc: dict[str, Any] = dict(json.loads(record) if isinstance(record, str) else (record or {}))
        if subject is not None:
            doc.setdefault("subject", subject)
        self.record = None
        self._record_doc = doc

    @staticmethod
    def reply_text(value: Any) -> str:
        """The text checked for an input: a str itself, a message's text, a message list's last message, or an
        agent state's (a mapping with `messages`, what `create_agent(...).invoke` returns) last message."""
        if isinstance(value, str):
            return value
        if isinstance(value, BaseMessage):
            return _text_of(value)
        if isinstance(value, Mapping) and isinstance(value.get("messages"), Sequence):
            value = value["messages"]
        if isinstance(value, Sequence) and value and isinstance(value[-1], BaseMessage):
            return _text_of(value[-1])
        raise TypeError(
            "curbi_guard checks a str, a message, a list of messages or an agent state {'messages': [...]}, "
            f"not {type(value).__name__}"
        )

    def _record_with(self, receipts: Any) -> Any:
        if self._record_doc is None:
            return self.record
        return {**self._record_doc, "receipts": receipts["receipts"]}

    def _judge(self, value: Any, record: Any) -> Any:
        result = self.check_text(self.reply_text(value), record)
        if not result.passed:
            raise CurbiViolation(result)
        return value

    def record_now(self) -> Any:
        """The record a reply is checked against now: the given one, with the recorder's receipts when there is one."""
        if self.recorder is not None and self._about is not None:
            return self._record_with(self.recorder.receipts(self._about))
        return self.record

    async def arecord_now(self) -> Any:
        """`record_now`, reading the recorder (a database read) on the executor."""
        if self.recorder is not None and self._about is not None:
            return self._record_with(await self.recorder.receipts_async(self._about))
        return self.record

    def check_text(self, text: str, record: Any) -> Any:
        """The check result for one reply's text against `record` (what `record_now` gave)."""
        return self.policy.check(text, record=record, version=self.version, verify=self.verify)

    def _check(self, value: Any) -> Any:
        return self._judge(value, self.record_now())

    async def _acheck(self, value: Any) -> Any:
        # Inline on purpose: the check takes microseconds, far less than a hop to an executor.
        return self._judge(value, await self.arecord_now())

    def wrap(self, model: Any, *, fallback: Optional[str] = None) -> Any:
        """`model` (a chat model) with this guard inside: a `CurbiGuardedChatModel` to use where the model would go
        (`prompt | guard.wrap(model) | parser`). Unlike `model | guard`, it keeps every token of a failing reply out
        of `astream_events`, `astream_log` and callback handlers; with `fallback`, a failing reply is replaced by
        that text instead of raising `CurbiViolation`."""
        from .guarded import CurbiGuardedChatModel

        return CurbiGuardedChatModel(model=model, guard=self, fallback=fallback)

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return self._call_with_config(self._check, input, config)

    async def ainvoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any) -> Any:
        return await self._acall_with_config(self._acheck, input, config)

    def batch(
        self,
        inputs: list[Any],
        config: Optional[Union[RunnableConfig, list[RunnableConfig]]] = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        configs = get_config_list(config, len(inputs))
        out: list[Any] = []
        for value, cfg in zip(inputs, configs):
            try:
                out.append(self.invoke(value, cfg))
            except Exception as e:
                if not return_exceptions:
                    raise
                out.append(e)
        return out

    async def abatch(
        self,
        inputs: list[Any],
        config: Optional[Union[RunnableConfig, list[RunnableConfig]]] = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        configs = get_config_list(config, len(inputs))
        out: list[Any] = []
        for value, cfg in zip(inputs, configs):
            try:
                out.append(await self.ainvoke(value, cfg))
            except Exception as e:
                if not return_exceptions:
                    raise
                out.append(e)
        return out


def curbi_guard(
    policy: PolicyArg, record: RecordArg = None, version: Optional[str] = None, **receipts: Any
) -> CurbiGuard:
    """A Runnable guard for `policy` (a dict, JSON str or compiled `curbi.Policy`). See the package README. The
    keyword arguments `recorder`, `conversation` or `subject`, `verify`, `receipt_keys` and `allow_test` check each
    reply against the receipts a `curbi.Recorder` signed (see `CurbiGuard`)."""
    return CurbiGuard(policy, record=record, version=version, **receipts)
