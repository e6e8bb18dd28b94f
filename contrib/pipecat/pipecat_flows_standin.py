"""A stand-in for the three pipecat_flows names examtui_flows imports, for the stdlib tests.

pipecat-ai-flows cannot be installed where examtui's CI runs, so the tests put this module in
sys.modules as "pipecat_flows": a FlowsFunctionSchema and a ContextStrategyConfig dataclass with
the 1.x fields and checks (ContextStrategyConfig refuses RESET_WITH_SUMMARY without a summary
prompt, as 1.x does), and the ContextStrategy enum.

ActionManager and NodeActions do with a NodeConfig's actions what pipecat-flows 1.x does
(pipecat_flows/actions.py, ActionManager; manager.py, FlowManager._set_node and
_register_action_from_config), without a pipeline: the built-in tts_say, end_conversation and
function actions; a custom type only with a callable handler in its config or registered; an
action without a type or without a handler is an ActionError; a handler is called with
(action, flow_manager) when it takes two parameters, else with (action), awaited when async, and
a function action's handler always with (action, flow_manager); nothing runs after
end_conversation; pre_actions run as the node is set, post_actions at once when the node
responds immediately, else deferred until the bot's turn is over. A test that passes here fails
where pipecat-flows would refuse the same configs.
"""

import asyncio
import dataclasses
import enum
import inspect
import sys
import types
from typing import Any, Callable, Dict, List, Optional


class ActionError(Exception):
    """As pipecat_flows.exceptions.ActionError."""


class ActionManager:
    def __init__(self, flow_manager: Any):
        self._flow_manager = flow_manager
        self._handlers: Dict[str, Callable] = {}
        self._deferred: List[Dict[str, Any]] = []
        self.spoken: List[str] = []
        self.ended = False
        self.trace: List[str] = []  # what ran, in order: "tts_say:TEXT", "function:NODE", "end_conversation"
        self.register_action("tts_say", self._tts)
        self.register_action("end_conversation", self._end)
        self.register_action("function", self._function)

    def register_action(self, action_type: str, handler: Callable) -> None:
        if not callable(handler):
            raise ValueError("Action handler must be callable")
        self._handlers[action_type] = handler

    def register_from_config(self, action: Dict[str, Any]) -> None:
        action_type, handler = action.get("type"), action.get("handler")
        if action_type and action_type not in self._handlers:
            if handler and callable(handler):
                self.register_action(action_type, handler)
            else:
                raise ActionError(f"Action '{action_type}' not registered. Provide handler in action config or register manually.")

    async def execute_actions(self, actions: Optional[List[Dict[str, Any]]]) -> None:
        for action in actions or []:
            action_type = action.get("type")
            if not action_type:
                raise ActionError("Action missing required 'type' field")
            handler = self._handlers.get(action_type)
            if not handler:
                raise ActionError(f"No handler registered for action type: {action_type}")
            try:
                args = (action, self._flow_manager) if len(inspect.signature(handler).parameters) > 1 else (action,)
                result = handler(*args)
                if asyncio.iscoroutine(result):
                    await result
            except Exception as e:
                raise ActionError(f"Failed to execute action {action_type}: {e}") from e
            if action_type == "end_conversation":
                break

    async def _tts(self, action: Dict[str, Any]) -> None:
        if action.get("text"):
            self.spoken.append(action["text"])
            self.trace.append("tts_say:" + action["text"])

    async def _end(self, action: Dict[str, Any]) -> None:
        if action.get("text"):
            self.spoken.append(action["text"])
        self.ended = True
        self.trace.append("end_conversation")

    async def _function(self, action: Dict[str, Any]) -> None:
        handler = action.get("handler")
        if not handler:
            return  # logged and skipped by pipecat-flows
        self.trace.append("function:" + str(action.get("node", "")))
        await handler(action, self._flow_manager)


class NodeActions:
    """The action half of FlowManager: set_node runs a NodeConfig's actions as _set_node does,
    bot_stopped_speaking the deferred post_actions. state is the flow manager's state."""

    def __init__(self):
        self.state: Dict[str, Any] = {}
        self.actions = ActionManager(self)

    async def set_node(self, cfg: Dict[str, Any]) -> None:
        self.actions._deferred = []
        for key in ("pre_actions", "post_actions"):
            for action in cfg.get(key, []):
                self.actions.register_from_config(action)
        await self.actions.execute_actions(cfg.get("pre_actions"))
        if post := cfg.get("post_actions"):
            if cfg.get("respond_immediately", True):
                await self.actions.execute_actions(post)
            else:
                self.actions._deferred = list(post)

    async def bot_stopped_speaking(self) -> None:
        actions, self.actions._deferred = self.actions._deferred, []
        if not self.actions.ended:
            await self.actions.execute_actions(actions)


def install() -> None:
    mod = types.ModuleType("pipecat_flows")

    class ContextStrategy(enum.Enum):
        APPEND = "append"
        RESET = "reset"
        RESET_WITH_SUMMARY = "reset_with_summary"

    @dataclasses.dataclass
    class ContextStrategyConfig:
        strategy: ContextStrategy
        summary_prompt: Optional[str] = None

        def __post_init__(self):
            if not isinstance(self.strategy, ContextStrategy):
                raise TypeError("strategy must be a ContextStrategy")
            if self.strategy == ContextStrategy.RESET_WITH_SUMMARY and not self.summary_prompt:
                raise ValueError("summary_prompt is required when using RESET_WITH_SUMMARY strategy")

    @dataclasses.dataclass
    class FlowsFunctionSchema:
        name: str
        description: str
        properties: Dict[str, Any]
        required: List[str]
        handler: Optional[Callable] = None
        cancel_on_interruption: bool = True

    mod.ContextStrategy = ContextStrategy
    mod.ContextStrategyConfig = ContextStrategyConfig
    mod.FlowsFunctionSchema = FlowsFunctionSchema
    mod.ActionError = ActionError
    sys.modules["pipecat_flows"] = mod
