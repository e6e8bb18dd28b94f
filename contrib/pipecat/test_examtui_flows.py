"""Structure tests of examtui_flows with the Python standard library only.

pipecat-ai-flows cannot be installed where examtui's CI runs, so these tests put small
stand-ins for the four names the module imports into sys.modules: a FlowsFunctionSchema and a
ContextStrategyConfig dataclass with the 1.x fields and checks (ContextStrategyConfig refuses
RESET_WITH_SUMMARY without a summary prompt, as 1.x does), and the ContextStrategy enum.
They check what the module builds against the 1.x NodeConfig shape.

The document under test is EXAMTUI_FLOWS_JSON (the Go test writes a fresh export there), else
the golden export in spec/testdata/golden.
"""

import asyncio
import copy
import dataclasses
import enum
import json
import os
import sys
import types
import unittest
from typing import Any, Callable, Dict, List, Optional


def _install_standins() -> None:
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


_install_standins()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import examtui_flows  # noqa: E402
from pipecat_flows import ContextStrategy, ContextStrategyConfig, FlowsFunctionSchema  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "spec", "testdata", "golden", "hotel-breakfast.pipecat-flows.json")


def load_doc() -> Dict[str, Any]:
    with open(os.environ.get("EXAMTUI_FLOWS_JSON") or GOLDEN, encoding="utf-8") as f:
        return json.load(f)


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeFlowManager:
    def __init__(self):
        self.state: Dict[str, Any] = {}


def run(coro):
    return asyncio.run(coro)


class NodeConfigShape(unittest.TestCase):
    def setUp(self):
        self.doc = load_doc()
        self.flow = examtui_flows.ExamFlow(self.doc, clock=FakeClock())

    def test_every_node_is_a_1x_node_config(self):
        for node_id in self.doc["metadata"]["nodeOrder"]:
            with self.subTest(node=node_id):
                cfg = self.flow.node(node_id)
                self.assertLessEqual(set(cfg), set(examtui_flows.NODE_CONFIG_KEYS))
                self.assertNotIn("metadata", cfg)
                self.assertNotIn("role_messages", cfg)  # deprecated in 1.x
                self.assertEqual(cfg["name"], node_id)
                self.assertIsInstance(cfg["role_message"], str)
                self.assertTrue(cfg["task_messages"])
                for m in cfg["task_messages"]:
                    self.assertIn(m["role"], ("system", "developer", "user"))
                    self.assertIsInstance(m["content"], str)
                self.assertIsInstance(cfg["context_strategy"], ContextStrategyConfig)
                self.assertIn(cfg["context_strategy"].strategy, (ContextStrategy.APPEND, ContextStrategy.RESET))
                self.assertFalse(cfg["respond_immediately"])
                for a in cfg["pre_actions"]:
                    self.assertIn(a["type"], ("tts_say", "end_conversation"))
                    if a["type"] == "tts_say":
                        self.assertTrue(a["text"])
                self.assertEqual(len(cfg["functions"]), 1)
                fn = cfg["functions"][0]
                self.assertIsInstance(fn, FlowsFunctionSchema)
                self.assertEqual(fn.name, "report_observation")
                self.assertTrue(callable(fn.handler))
                self.assertTrue(fn.description)
                self.assertLessEqual(set(fn.required), set(fn.properties))

    def test_end_node_ends_the_conversation(self):
        ends = [n for n, v in self.doc["nodes"].items() if v["metadata"]["kind"] == "end"]
        self.assertTrue(ends)
        for node_id in ends:
            cfg = self.flow.node(node_id)
            self.assertEqual(cfg["pre_actions"][-1], {"type": "end_conversation"})

    def test_reset_with_summary_becomes_reset_with_a_summary(self):
        summarised = [n for n, v in self.doc["nodes"].items() if v["context_strategy"]["strategy"] == "reset_with_summary"]
        self.assertTrue(summarised, "the example exam has a reset_with_summary node")
        cfg = self.flow.node(summarised[0], previous=("scenario-hotel-breakfast", "evidence_sufficient"))
        self.assertEqual(cfg["context_strategy"].strategy, ContextStrategy.RESET)
        self.assertEqual(cfg["task_messages"][0]["role"], "developer")
        self.assertIn("scenario-hotel-breakfast", cfg["task_messages"][0]["content"])

    def test_node_configs_do_not_share_state_with_the_document(self):
        cfg = self.flow.node(self.doc["initial_node"])
        cfg["task_messages"].append({"role": "user", "content": "x"})
        cfg["functions"][0].properties["x"] = {}
        again = self.flow.node(self.doc["initial_node"])
        self.assertEqual(len(again["task_messages"]), len(self.doc["nodes"][self.doc["initial_node"]]["task_messages"]))
        self.assertNotIn("x", again["functions"][0].properties)


class Handler(unittest.TestCase):
    def setUp(self):
        self.doc = load_doc()
        self.clock = FakeClock()
        self.seen = []
        self.flow = examtui_flows.ExamFlow(self.doc, clock=self.clock, on_transition=lambda *t: self.seen.append(t))
        self.fm = FakeFlowManager()

    def enter(self, node_id):
        return self.flow.node(node_id)

    def call(self, cfg, **args):
        return run(cfg["functions"][0].handler(args, self.fm))

    def test_evidence_sufficient_follows_the_exported_transition(self):
        cfg = self.enter("scenario-hotel-breakfast")
        result, nxt = self.call(cfg, signals=[{"signalType": "proposes_options"}], evidenceSufficient=True, spokenText="Go on.")
        self.assertIsNone(nxt, "one of two required signals is not enough")
        self.assertEqual(result["decision"], "continue")
        result, nxt = self.call(cfg, signals=[{"signalType": "considers_budget"}, {"signalType": "made_up"}], evidenceSufficient=True)
        want = self.doc["nodes"]["scenario-hotel-breakfast"]["transitions"]["evidence_sufficient"]
        self.assertEqual(result["reason"], "evidence_sufficient")
        self.assertEqual(result["evidence"], ["proposes_options", "considers_budget"])
        self.assertEqual(nxt["name"], want)
        self.assertEqual(self.seen, [("scenario-hotel-breakfast", "evidence_sufficient", want)])
        self.assertEqual(self.fm.state["examtui"]["node"], want)

    def test_follow_ups_run_out(self):
        cfg = self.enter("scenario-hotel-breakfast")
        limit = self.doc["nodes"]["scenario-hotel-breakfast"]["metadata"]["maxFollowUps"]
        for _ in range(limit):
            result, nxt = self.call(cfg, needsFollowUp=True)
            self.assertEqual(result["decision"], "follow_up")
            self.assertIsNone(nxt)
        result, nxt = self.call(cfg, needsFollowUp=True)
        self.assertEqual(result["reason"], "followups_exhausted")
        self.assertEqual(nxt["name"], self.doc["nodes"]["scenario-hotel-breakfast"]["transitions"]["followups_exhausted"])

    def test_time_budget_and_distress(self):
        cfg = self.enter("scenario-hotel-breakfast")
        self.clock.now += self.doc["nodes"]["scenario-hotel-breakfast"]["metadata"]["timeBudgetSec"]
        result, nxt = self.call(cfg, answerQuality="substantive")
        self.assertEqual(result["reason"], "time_exhausted")
        cfg = self.enter("scenario-hotel-breakfast")
        result, nxt = self.call(cfg, distressDetected=True)
        self.assertEqual(nxt["name"], self.doc["nodes"]["scenario-hotel-breakfast"]["transitions"]["distress"])

    def test_skip_needs_the_policy(self):
        doc = copy.deepcopy(self.doc)
        doc["metadata"]["policies"]["skipAllowed"] = False
        flow = examtui_flows.ExamFlow(doc, clock=self.clock)
        cfg = flow.node("scenario-hotel-breakfast")
        result, nxt = run(cfg["functions"][0].handler({"commandDetected": "skip"}, self.fm))
        self.assertIsNone(nxt)
        doc["metadata"]["policies"]["skipAllowed"] = True
        flow = examtui_flows.ExamFlow(doc, clock=self.clock)
        cfg = flow.node("scenario-hotel-breakfast")
        result, nxt = run(cfg["functions"][0].handler({"commandDetected": "skip"}, self.fm))
        self.assertEqual(result["reason"], "skipped")

    def test_end_node_stays(self):
        end = [n for n, v in self.doc["nodes"].items() if v["metadata"]["kind"] == "end"][0]
        cfg = self.enter(end)
        result, nxt = self.call(cfg, evidenceSufficient=True)
        self.assertIsNone(nxt)

    def test_whole_exam_walks_the_graph(self):
        cfg = self.flow.initial_node()
        visited = [cfg["name"]]
        for _ in range(10):
            node = self.doc["nodes"][cfg["name"]]
            if not node["transitions"]:
                break
            sigs = [{"signalType": s} for s in node["metadata"].get("evidenceSignals", [])]
            _, cfg = self.call(cfg, signals=sigs, evidenceSufficient=True)
            visited.append(cfg["name"])
        self.assertEqual(visited, self.doc["metadata"]["nodeOrder"])


class DocumentChecks(unittest.TestCase):
    def test_refuses_other_documents(self):
        doc = load_doc()
        for mutate, msg in [
            (lambda d: d.pop("format"), "not an examtui-pipecat-flows document"),
            (lambda d: d.update(formatVersion=2), "formatVersion 2 is not supported"),
            (lambda d: d.update(initial_node="nowhere"), "initial_node"),
            (lambda d: d["nodes"]["welcome"]["transitions"].update(distress="nowhere"), "unknown node 'nowhere'"),
        ]:
            bad = copy.deepcopy(doc)
            mutate(bad)
            with self.subTest(msg=msg):
                with self.assertRaisesRegex(examtui_flows.ExamFlowError, msg):
                    examtui_flows.ExamFlow(bad)

    def test_versioned(self):
        doc = load_doc()
        self.assertEqual(doc["format"], "examtui-pipecat-flows")
        self.assertEqual(doc["formatVersion"], 1)
        self.assertTrue(doc["target"].startswith("pipecat-ai-flows>=1.0"))


if __name__ == "__main__":
    unittest.main()
