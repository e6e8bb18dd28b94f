"""Tests of examtui_flows with the Python standard library only.

pipecat_flows_standin stands in for pipecat-ai-flows (which cannot be installed where
examtui's CI runs). The document under test is EXAMTUI_FLOWS_JSON, the controller
EXAMTUI_CONTROLLER_URL (with EXAMTUI_CONTROLLER_TOKEN): the Go test
(cmd/examtui/internal/controlhttp, TestPipecatFlowsPythonModule) writes a fresh export and runs a real
`examtui controller` server on loopback for them.
"""

import asyncio
import copy
import json
import os
import socket
import sys
import unittest
from typing import Any, Dict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pipecat_flows_standin  # noqa: E402

pipecat_flows_standin.install()
import examtui_flows  # noqa: E402
from pipecat_flows import ContextStrategy, ContextStrategyConfig, FlowsFunctionSchema  # noqa: E402

URL = os.environ.get("EXAMTUI_CONTROLLER_URL", "")
TOKEN = os.environ.get("EXAMTUI_CONTROLLER_TOKEN")


def load_doc() -> Dict[str, Any]:
    with open(os.environ["EXAMTUI_FLOWS_JSON"], encoding="utf-8") as f:
        return json.load(f)


def new_flow(doc=None, **kw):
    return examtui_flows.ExamFlow(doc or load_doc(), controller_url=kw.pop("url", URL or "http://127.0.0.1:9"), token=kw.pop("token", TOKEN), **kw)


class FlowManagerStandIn:
    def __init__(self):
        self.state: Dict[str, Any] = {}


def closed_port_url() -> str:
    """The URL of a loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def run(coro):
    return asyncio.run(coro)


def said(cfg):
    return [a["text"] for a in cfg["pre_actions"] if a["type"] == "tts_say"]


class NodeConfigShape(unittest.TestCase):
    def setUp(self):
        self.doc = load_doc()
        self.flow = new_flow(self.doc)

    def test_every_node_is_a_1x_node_config(self):
        for node_id in self.doc["metadata"]["nodeOrder"]:
            with self.subTest(node=node_id):
                cfg = self.flow.node(node_id, say=["Hello."])
                self.assertLessEqual(set(cfg), set(examtui_flows.NODE_CONFIG_KEYS))
                self.assertNotIn("metadata", cfg)
                self.assertNotIn("role_messages", cfg)  # deprecated in 1.x
                self.assertEqual(cfg["name"], node_id)
                self.assertIsInstance(cfg["role_message"], str)
                for m in cfg["task_messages"]:
                    self.assertIn(m["role"], ("system", "developer", "user"))
                    self.assertIsInstance(m["content"], str)
                self.assertIsInstance(cfg["context_strategy"], ContextStrategyConfig)
                self.assertIn(cfg["context_strategy"].strategy, (ContextStrategy.APPEND, ContextStrategy.RESET))
                # The bot says the controller's lines and nothing of the model's own.
                self.assertFalse(cfg["respond_immediately"])
                entered, line = cfg["pre_actions"]
                self.assertEqual((entered["type"], entered["node"], entered["handler"]), ("function", node_id, self.flow.node_entered))
                self.assertEqual(line, {"type": "tts_say", "text": "Hello."})
                self.assertNotIn("post_actions", cfg)  # nothing was left
                fn = cfg["functions"][0]
                self.assertIsInstance(fn, FlowsFunctionSchema)
                self.assertEqual(fn.name, "report_observation")
                self.assertTrue(callable(fn.handler))
                self.assertLessEqual(set(fn.required), set(fn.properties))

    def test_an_ended_exam_ends_the_conversation(self):
        last = self.doc["metadata"]["nodeOrder"][-1]
        cfg = self.flow.node(last, say=["Goodbye."], ended=True)
        self.assertEqual([a["type"] for a in cfg["pre_actions"]], ["function", "tts_say", "function", "end_conversation"])
        self.assertEqual(cfg["pre_actions"][1], {"type": "tts_say", "text": "Goodbye."})
        self.assertEqual(cfg["pre_actions"][2]["handler"], self.flow.finalize_node)

    def test_the_drawn_variant_gives_the_task_messages(self):
        path = os.environ.get("EXAMTUI_FLOWS_VARIANTS_JSON")
        if not path:
            self.fail("EXAMTUI_FLOWS_VARIANTS_JSON is not set: run through TestPipecatFlowsPythonModule")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        flow = new_flow(doc)
        variants = doc["nodes"]["case"]["variants"]
        self.assertEqual(sorted(variants), ["breakfast", "parking", "spa"])
        for drawn, v in variants.items():
            with self.subTest(variant=drawn):
                # As the controller answers when it entered the node and drew the variant.
                cfg = flow._apply({"node": "case", "variant": drawn, "say": [{"text": v["metadata"]["conversationPrompt"]}], "transitions": [], "ended": False})
                self.assertEqual(cfg["task_messages"], v["task_messages"])
                text = " ".join(m["content"] for m in cfg["task_messages"])
                for other, ov in variants.items():
                    self.assertEqual(ov["metadata"]["conversationPrompt"] in text, other == drawn)
                flow.node_id = None
        with self.assertRaises(examtui_flows.ExamFlowError):
            flow.node("case", variant="sauna")

    def test_staying_keeps_the_context(self):
        cfg = self.flow.node(self.doc["initial_node"], say=["Go on."], stay=True)
        self.assertEqual(cfg["context_strategy"].strategy, ContextStrategy.APPEND)
        self.assertIn("Go on.", cfg["task_messages"][0]["content"])

    def test_reset_with_summary_becomes_reset_with_a_summary(self):
        summarised = [n for n, v in self.doc["nodes"].items() if v["context_strategy"]["strategy"] == "reset_with_summary"]
        self.assertTrue(summarised, "the example exam has a reset_with_summary node")
        cfg = self.flow.node(summarised[0], previous=("scenario-hotel-breakfast", "evidence_sufficient"))
        self.assertEqual(cfg["context_strategy"].strategy, ContextStrategy.RESET)
        self.assertIn("scenario-hotel-breakfast", cfg["task_messages"][0]["content"])

    def test_no_decision_logic(self):
        for name in ("decide", "_NodeLedger"):
            self.assertFalse(hasattr(examtui_flows.ExamFlow, name) or hasattr(examtui_flows, name), name)


class NodeActionsThroughTheActionManager(unittest.TestCase):
    """The node actions run through pipecat-flows' action semantics (the stand-in's
    ActionManager, see pipecat_flows_standin): node_entered first as the bot enters a node,
    the node left finalised once the transition's lines are said, and at the end before
    end_conversation."""

    def setUp(self):
        self.doc = load_doc()
        self.events = []
        self.flow = new_flow(self.doc, on_event=self.events.append)
        self.fm = pipecat_flows_standin.NodeActions()

    def test_the_export_declares_the_actions(self):
        for node_id, node in self.doc["nodes"].items():
            with self.subTest(node=node_id):
                self.assertEqual(node["pre_actions"][0], {"type": "function", "handler": examtui_flows.HANDLER_NODE_ENTERED})
                self.assertEqual(node["post_actions"], [{"type": "function", "handler": examtui_flows.HANDLER_FINALIZE_NODE}])

    def test_a_transition_enters_and_then_finalises(self):
        first, second = self.doc["metadata"]["nodeOrder"][:2]
        run(self.fm.set_node(self.flow.node(first, say=["Welcome."])))
        self.assertEqual(self.events, [{"event": "node_entered", "sessionId": None, "nodeId": first}])
        # As the controller answers a turn that moved the exam on.
        self.flow.node_id = first
        cfg = self.flow._apply({"node": second, "say": [{"text": "Thank you."}, {"text": "Next question?"}],
                                "transitions": [{"from": first, "reason": "evidence_sufficient", "to": second}], "ended": False})
        run(self.fm.set_node(cfg))
        self.assertEqual(self.fm.actions.trace[-3:], ["function:" + second, "tts_say:Thank you.", "tts_say:Next question?"])
        self.assertEqual(self.events[-1], {"event": "node_entered", "sessionId": None, "nodeId": second})
        # Not finalised while the bot still speaks: pipecat-flows defers the post_actions.
        self.assertNotIn("node_finalized", [e["event"] for e in self.events])
        run(self.fm.bot_stopped_speaking())
        self.assertEqual(self.events[-1], {"event": "node_finalized", "sessionId": None, "nodeId": first,
                                           "reason": "evidence_sufficient", "next": second})
        self.assertEqual([e["event"] for e in self.fm.state["examtui"]["events"]], ["node_entered", "node_entered", "node_finalized"])
        # Staying in the node enters nothing and finalises nothing.
        n = len(self.events)
        run(self.fm.set_node(self.flow._apply({"node": second, "say": [{"text": "Go on."}], "transitions": [], "ended": False})))
        run(self.fm.bot_stopped_speaking())
        self.assertEqual(len(self.events), n)

    def test_the_end_finalises_before_end_conversation(self):
        first, last = self.doc["metadata"]["nodeOrder"][0], self.doc["metadata"]["nodeOrder"][-1]
        self.flow.node_id = first
        cfg = self.flow._apply({"node": last, "say": [{"text": "Goodbye."}],
                                "transitions": [{"from": first, "reason": "admin_advance", "to": last}], "ended": True})
        run(self.fm.set_node(cfg))
        self.assertEqual(self.fm.actions.trace, ["function:" + last, "tts_say:Goodbye.", "function:" + first, "function:" + last, "end_conversation"])
        self.assertEqual([(e["event"], e["nodeId"]) for e in self.events],
                         [("node_entered", last), ("node_finalized", first), ("node_finalized", last)])
        self.assertEqual(self.events[-1]["reason"], "ended")
        run(self.fm.bot_stopped_speaking())  # nothing runs after end_conversation
        self.assertEqual(len(self.events), 3)

    def test_an_async_on_event_is_awaited(self):
        got = []

        async def forward(event):
            await asyncio.sleep(0)
            got.append(event["event"])

        flow = new_flow(self.doc, on_event=forward)
        run(self.fm.set_node(flow.node(self.doc["initial_node"], say=["Hi."])))
        self.assertEqual(got, ["node_entered"])

    def test_the_action_manager_refuses_what_pipecat_flows_refuses(self):
        for actions, msg in [
            ([{"text": "no type"}], "missing required 'type'"),
            ([{"type": "examtui_custom"}], "not registered"),
        ]:
            with self.subTest(msg=msg):
                with self.assertRaisesRegex(Exception, msg):
                    run(self.fm.set_node({"pre_actions": actions}))


class AgainstTheController(unittest.TestCase):
    def setUp(self):
        self.doc = load_doc()
        self.flow = new_flow(self.doc)
        self.fm = FlowManagerStandIn()

    def handler(self, cfg):
        return cfg["functions"][0].handler

    def test_start_says_the_opening_of_the_entry_node(self):
        cfg = run(self.flow.start(candidate="Ada"))
        self.assertTrue(self.flow.session_id)
        self.assertEqual(cfg["name"], self.doc["initial_node"])
        self.assertTrue(said(cfg))
        fm = pipecat_flows_standin.NodeActions()
        run(fm.set_node(cfg))
        self.assertEqual(fm.state["examtui"]["events"], [{"event": "node_entered", "sessionId": self.flow.session_id, "nodeId": cfg["name"]}])
        self.assertEqual(fm.actions.spoken, said(cfg))

    def test_a_turn_follows_the_controller(self):
        cfg = run(self.flow.start())
        self.flow.candidate_said("I'm Kim, on the hospitality course.", 0.95, 3000)
        args = {"signals": [], "answerQuality": "substantive", "needsFollowUp": False, "evidenceSufficient": True,
                "anxietyDetected": False, "distressDetected": False, "spokenText": "Thank you, Kim."}
        result, nxt = run(self.handler(cfg)(args, self.fm))
        want = self.doc["nodes"][self.doc["initial_node"]]["transitions"]["evidence_sufficient"]
        self.assertEqual(nxt["name"], want)
        self.assertEqual(self.flow.history[0]["from"], self.doc["initial_node"])
        self.assertEqual(self.flow.history[0]["to"], want)
        self.assertTrue(said(nxt))
        self.assertEqual(result["spokenText"], " ".join(said(nxt)))
        self.assertEqual(self.fm.state["examtui"]["node"], want)

    def test_no_tool_call_gets_the_controllers_fallback(self):
        cfg = run(self.flow.start())
        self.flow.candidate_said("Hello.", 0.9)
        result, nxt = run(self.flow.no_tool_call(self.fm))
        self.assertEqual(nxt["name"], cfg["name"])
        self.assertTrue(result["spokenText"])
        self.assertEqual(nxt["context_strategy"].strategy, ContextStrategy.APPEND)

    def test_the_turn_needs_a_transcript(self):
        cfg = run(self.flow.start())
        with self.assertRaisesRegex(examtui_flows.ExamFlowError, "candidate_said"):
            run(self.handler(cfg)({}, self.fm))

    def test_a_refused_turn_is_a_clear_error(self):
        cfg = run(self.flow.start())
        self.flow.candidate_said("Hello.", 1.5)
        with self.assertLogs("examtui_flows", "ERROR"):
            result, nxt = run(self.flow.no_tool_call())
        self.assertEqual((result["status"], result["errorStatus"]), ("error", 400))
        self.assertIn("confidence", result["error"])
        # The candidate hears the fallback line, in the same node, and the refusal is not retried.
        self.assertEqual((nxt["name"], said(nxt)), (cfg["name"], [examtui_flows.FALLBACK_LINE]))
        self.assertEqual([e["code"] for e in self.flow.pending_errors], [examtui_flows.CODE_ERROR])

    def test_an_unreachable_controller_says_the_fallback_then_reports_it(self):
        cfg = run(self.flow.start())
        url = self.flow.controller_url
        self.flow.controller_url, self.flow.retry_wait = closed_port_url(), 0.01
        self.flow.candidate_said("We could open a second buffet line.", 0.9)
        args = {"signals": [], "answerQuality": "partial", "needsFollowUp": True, "evidenceSufficient": False,
                "anxietyDetected": False, "distressDetected": False, "spokenText": "Say more?"}
        with self.assertLogs("examtui_flows", "WARNING") as logs:
            result, nxt = run(self.handler(cfg)(args, self.fm))
        # Two retries with a bounded wait, then the fallback line and the failure logged.
        self.assertEqual(sum("retrying" in m for m in logs.output), self.flow.retries)
        self.assertTrue(any("ERROR" in m and "controller_unreachable" in m for m in logs.output))
        self.assertEqual((result["status"], result["ended"]), ("error", False))
        self.assertEqual((nxt["name"], said(nxt)), (cfg["name"], [examtui_flows.FALLBACK_LINE]))
        self.assertEqual(nxt["context_strategy"].strategy, ContextStrategy.APPEND)
        self.assertEqual([e["code"] for e in self.flow.pending_errors], [examtui_flows.CODE_UNREACHABLE])
        # The next call that gets through carries it (the Go test checks the system_error).
        self.flow.controller_url = url
        self.flow.candidate_said("We could open a second buffet line.", 0.9)
        result, _ = run(self.handler(cfg)(args, self.fm))
        self.assertEqual(result["status"], "success")
        self.assertEqual(self.flow.pending_errors, [])

    def test_a_wrong_token_is_refused(self):
        flow = new_flow(self.doc, token="wrong")
        with self.assertRaises(examtui_flows.ControllerError) as cm:
            run(flow.start())
        self.assertEqual(cm.exception.status, 401)


class DocumentChecks(unittest.TestCase):
    def test_refuses_other_documents(self):
        doc = load_doc()
        for mutate, msg in [
            (lambda d: d.pop("format"), "not an examtui-pipecat-flows document"),
            (lambda d: d.update(formatVersion=2), "formatVersion 2 is not supported"),
            (lambda d: d.update(initial_node="nowhere"), "initial_node"),
            (lambda d: d["nodes"]["welcome"]["transitions"].update(distress="nowhere"), "unknown node 'nowhere'"),
            (lambda d: d["nodes"]["welcome"]["post_actions"].append({"type": "function", "handler": "examtui.grade"}), "handler 'examtui.grade'"),
        ]:
            bad = copy.deepcopy(doc)
            mutate(bad)
            with self.subTest(msg=msg):
                with self.assertRaisesRegex(examtui_flows.ExamFlowError, msg):
                    new_flow(bad)

    def test_unreachable_controller(self):
        flow = new_flow(url=closed_port_url(), timeout=2, retry_wait=0.01)
        with self.assertLogs("examtui_flows", "WARNING"):
            with self.assertRaisesRegex(examtui_flows.ControllerError, "unreachable"):
                run(flow.start())

    def test_retries_must_not_be_negative(self):
        with self.assertRaisesRegex(examtui_flows.ExamFlowError, "negative"):
            new_flow(retries=-1)


if __name__ == "__main__":
    unittest.main()
