"""A stand-in for the three pipecat_flows names examtui_flows imports, for the stdlib tests.

pipecat-ai-flows cannot be installed where examtui's CI runs, so the tests put this module in
sys.modules as "pipecat_flows": a FlowsFunctionSchema and a ContextStrategyConfig dataclass with
the 1.x fields and checks (ContextStrategyConfig refuses RESET_WITH_SUMMARY without a summary
prompt, as 1.x does), and the ContextStrategy enum.
"""

import dataclasses
import enum
import sys
import types
from typing import Any, Callable, Dict, List, Optional


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
    sys.modules["pipecat_flows"] = mod
