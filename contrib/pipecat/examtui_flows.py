"""Run an examtui exam in a Pipecat bot with Pipecat Flows 1.x.

`examtui compile exam.yaml --target pipecat-flows -o exam.flows.json` writes the exam as
data (format "examtui-pipecat-flows", formatVersion 1). This module turns that document into
pipecat-ai-flows 1.x NodeConfigs: role_message, task_messages, a report_observation
FlowsFunctionSchema with a handler, pre_actions (tts_say, end_conversation), a
ContextStrategyConfig and respond_immediately. The handler keeps a small ledger of the node's
evidence, follow-ups and off-topic answers, decides whether the node is done, and returns
(result, next_node) where next_node is the NodeConfig of the node the exported transitions
name for that reason (None while the node goes on).

    from examtui_flows import ExamFlow

    exam = ExamFlow.from_file("exam.flows.json")
    flow_manager = FlowManager(task=task, llm=llm, context_aggregator=context_aggregator)
    await flow_manager.initialize(exam.initial_node())

It needs only the Python standard library and pipecat-ai-flows (or pipecat-ai >= 1.5, which
ships Flows as pipecat.flows). The decision order is a compact port of examtui's controller
(skip, distress, time budget, evidence, off-topic limit, follow-up limit); the full controller,
with output filters, commands and guardrails, stays in examtui itself.
"""

from __future__ import annotations

import copy
import json
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

try:  # pipecat-ai-flows 1.x
    from pipecat_flows import (
        ContextStrategy,
        ContextStrategyConfig,
        FlowsFunctionSchema,
    )
except ImportError:  # pipecat-ai >= 1.5 ships Flows in the core package
    from pipecat.flows import (  # type: ignore[no-redef]
        ContextStrategy,
        ContextStrategyConfig,
        FlowsFunctionSchema,
    )

FORMAT = "examtui-pipecat-flows"
FORMAT_VERSIONS = (1,)
REPORT_OBSERVATION = "report_observation"

# The keys a pipecat-flows 1.x NodeConfig may carry; the exported "metadata" and
# "transitions" are for this module only and never reach the FlowManager.
NODE_CONFIG_KEYS = (
    "name",
    "role_message",
    "task_messages",
    "functions",
    "pre_actions",
    "post_actions",
    "context_strategy",
    "respond_immediately",
)

# Transition reasons, as examtui names them.
SKIPPED = "skipped"
DISTRESS = "distress"
TIME_EXHAUSTED = "time_exhausted"
EVIDENCE_SUFFICIENT = "evidence_sufficient"
OFF_TOPIC_LIMIT = "off_topic_limit"
FOLLOWUPS_EXHAUSTED = "followups_exhausted"


class ExamFlowError(ValueError):
    """The document is not an examtui pipecat-flows export this module can run."""


class _NodeLedger:
    """What one visit to a node has gathered."""

    def __init__(self, node_id: str, entered_at: float):
        self.node_id = node_id
        self.entered_at = entered_at
        self.signals: List[str] = []
        self.follow_ups = 0
        self.off_topic = 0


class ExamFlow:
    """An exported exam, made into pipecat-flows 1.x NodeConfigs.

    One ExamFlow runs one session: it keeps the current node's ledger. clock returns seconds
    (default time.monotonic); on_transition(from_node, reason, to_node) is called on every
    transition the handler decides.
    """

    def __init__(
        self,
        doc: Dict[str, Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        on_transition: Optional[Callable[[str, str, str], None]] = None,
    ):
        _check(doc)
        self.doc = doc
        self.nodes: Dict[str, Dict[str, Any]] = doc["nodes"]
        self.policies: Dict[str, Any] = doc.get("metadata", {}).get("policies", {}) or {}
        self._clock = clock
        self._on_transition = on_transition
        self._ledger: Optional[_NodeLedger] = None
        self.history: List[Dict[str, str]] = []

    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> "ExamFlow":
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f), **kwargs)

    def initial_node(self) -> Dict[str, Any]:
        """The NodeConfig to pass to FlowManager.initialize."""
        return self.node(self.doc["initial_node"])

    def node(self, node_id: str, *, previous: Optional[Tuple[str, str]] = None) -> Dict[str, Any]:
        """The NodeConfig of node_id; entering it starts a new ledger. previous is the
        (node, reason) the exam comes from, summarised for a reset_with_summary node."""
        if node_id not in self.nodes:
            raise ExamFlowError(f"unknown node {node_id!r}")
        src = self.nodes[node_id]
        self._ledger = _NodeLedger(node_id, self._clock())
        task_messages = copy.deepcopy(src["task_messages"])
        strategy = (src.get("context_strategy") or {}).get("strategy", "reset")
        if strategy == "reset_with_summary":
            # reset_with_summary is deprecated in pipecat-flows 1.x: reset, and carry a short
            # summary of where the exam comes from as a developer message.
            if previous is not None:
                task_messages.insert(0, {"role": "developer", "content": _summary(*previous)})
            strategy = "reset"
        config: Dict[str, Any] = {
            "name": src["name"],
            "role_message": src["role_message"],
            "task_messages": task_messages,
            "functions": [self._function(fn) for fn in src["functions"]],
            "pre_actions": copy.deepcopy(src.get("pre_actions") or []),
            "context_strategy": ContextStrategyConfig(strategy=_strategy(strategy)),
            "respond_immediately": bool(src.get("respond_immediately", False)),
        }
        return config

    def _function(self, fn: Dict[str, Any]) -> Any:
        handler = self.report_observation if fn["name"] == REPORT_OBSERVATION else None
        return FlowsFunctionSchema(
            name=fn["name"],
            description=fn["description"],
            properties=copy.deepcopy(fn.get("properties") or {}),
            required=list(fn.get("required") or []),
            handler=handler,
        )

    async def report_observation(self, args: Dict[str, Any], flow_manager: Any) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]]]:
        """The report_observation handler: (result, next_node), next_node None to stay."""
        ledger = self._ledger
        if ledger is None:
            raise ExamFlowError("report_observation before a node was entered")
        node = self.nodes[ledger.node_id]
        reason, decision = self.decide(node, ledger, args or {})
        result: Dict[str, Any] = {
            "status": "success",
            "node": ledger.node_id,
            "decision": decision,
            "evidence": list(ledger.signals),
        }
        spoken = (args or {}).get("spokenText")
        if isinstance(spoken, str) and spoken.strip():
            result["spokenText"] = spoken
        next_node = None
        if reason is not None:
            result["reason"] = reason
            to = node.get("transitions", {}).get(reason)
            if to:
                self.history.append({"from": ledger.node_id, "reason": reason, "to": to})
                if self._on_transition is not None:
                    self._on_transition(ledger.node_id, reason, to)
                next_node = self.node(to, previous=(ledger.node_id, reason))
        state = getattr(flow_manager, "state", None)
        if isinstance(state, dict):
            state["examtui"] = {"node": self._ledger.node_id if self._ledger else None, "history": list(self.history)}
        return result, next_node

    def decide(self, node: Dict[str, Any], ledger: _NodeLedger, args: Dict[str, Any]) -> Tuple[Optional[str], str]:
        """The transition reason the observation leads to (None: stay) and the decision."""
        meta = node.get("metadata", {})
        targets = list(meta.get("evidenceSignals") or [])
        listened = set(targets) | set(meta.get("transversalSkills") or [])
        for sig in args.get("signals") or []:
            st = sig.get("signalType") if isinstance(sig, dict) else None
            if st in listened and st not in ledger.signals:
                ledger.signals.append(st)
        if args.get("commandDetected") == "skip" and self.policies.get("skipAllowed") and meta.get("kind") == "assessment":
            return SKIPPED, "transition"
        if args.get("distressDetected") is True:
            return DISTRESS, "transition"
        budget = meta.get("timeBudgetSec") or 0
        if budget > 0 and self._clock() - ledger.entered_at >= budget:
            return TIME_EXHAUSTED, "transition"
        if args.get("evidenceSufficient") is True:
            required = meta.get("requiredEvidenceCount", 1)
            got = len([s for s in ledger.signals if s in targets])
            if not targets or got >= required:
                return EVIDENCE_SUFFICIENT, "transition"
        if args.get("answerQuality") == "off_topic":
            ledger.off_topic += 1
            if ledger.off_topic >= meta.get("maxOffTopicRedirects", 2):
                return OFF_TOPIC_LIMIT, "transition"
        if args.get("needsFollowUp") is True:
            if ledger.follow_ups >= meta.get("maxFollowUps", 3):
                return FOLLOWUPS_EXHAUSTED, "transition"
            ledger.follow_ups += 1
            return None, "follow_up"
        return None, "continue"


def _check(doc: Any) -> None:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExamFlowError(f"not an {FORMAT} document (write one with: examtui compile EXAM --target pipecat-flows)")
    if doc.get("formatVersion") not in FORMAT_VERSIONS:
        raise ExamFlowError(f"formatVersion {doc.get('formatVersion')!r} is not supported (this module reads {FORMAT_VERSIONS})")
    nodes = doc.get("nodes")
    if not isinstance(nodes, dict) or doc.get("initial_node") not in nodes:
        raise ExamFlowError("initial_node must name one of nodes")
    for node_id, node in nodes.items():
        for key in ("name", "role_message", "task_messages", "functions", "transitions"):
            if key not in node:
                raise ExamFlowError(f"node {node_id!r} lacks {key}")
        for reason, to in node["transitions"].items():
            if to not in nodes:
                raise ExamFlowError(f"node {node_id!r}: {reason} leads to unknown node {to!r}")


def _strategy(name: str) -> Any:
    if name == "append":
        return ContextStrategy.APPEND
    if name == "reset":
        return ContextStrategy.RESET
    raise ExamFlowError(f"unknown context strategy {name!r}")


def _summary(node_id: str, reason: str) -> str:
    return f"Previous part of the exam: {node_id} (ended: {reason.replace('_', ' ')}). Do not refer back to it unless the candidate does."
