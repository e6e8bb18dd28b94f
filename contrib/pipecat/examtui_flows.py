"""Run an examtui exam in a Pipecat bot with Pipecat Flows 1.x, decided by examtui's controller.

`examtui compile exam.yaml --target pipecat-flows -o exam.flows.json` writes the exam as
data (format "examtui-pipecat-flows", formatVersion 1); `examtui controller exam.yaml` serves
examtui's runtime controller over HTTP (the runtime controller webhook). This module turns the
document into pipecat-ai-flows 1.x NodeConfigs whose report_observation handler asks the
controller for every decision. It keeps no decision logic of its own: the controller applies
its guardrails, evidence ledger, output filters, candidate commands, the confidence gate and
examiner failover, and records the session in examtui's store, exactly as for any other exam.
Decisions are therefore the same as examtui's by construction.

    from examtui_flows import ExamFlow

    exam = ExamFlow.from_file("exam.flows.json", controller_url="http://127.0.0.1:8765",
                              token=os.environ.get("EXAMTUI_CONTROLLER_TOKEN"))
    flow_manager = FlowManager(task=task, llm=llm, context_aggregator=context_aggregator)
    await flow_manager.initialize(await exam.start(candidate="Ada"))

    # In the bot's STT processor, for every final transcript (before the LLM runs):
    exam.candidate_said(frame.text, confidence)

The handler posts the candidate's last transcript (given by candidate_said: the flow manager's
context has no STT confidence) and the report_observation arguments exactly as the LLM sent
them. The controller answers with the validated lines the candidate must hear and the node now
current; the handler returns (result, next_node) where next_node is always a NodeConfig: the
node the controller names (the same node again when the exam stays), whose pre_actions are a
tts_say per line (and end_conversation once the exam ended) and whose respond_immediately is
False. pipecat-flows 1.x does not run the LLM after a function that returns a next node, so the
bot says exactly the controller's lines and nothing the model wrote itself. A turn the model
answers without calling report_observation can be reported with `await exam.no_tool_call()`:
the controller then takes its malformed-reply path (a canned line, a system_error).

Node actions: every NodeConfig that enters a node starts with a function action whose handler
(ExamFlow.node_entered) emits node_entered, and the NodeConfig that leaves a node carries, as
post_actions, a function action whose handler (ExamFlow.finalize_node) finalises the node left.
pipecat-flows runs post_actions of a node that does not respond immediately once the bot's turn
is over, so the node is finalised after the transition's lines are said; at the end of the exam
the finalisations run before end_conversation, after which pipecat-flows runs nothing. Each
handler records the event in flow_manager.state["examtui"]["events"] and passes it to on_event
(a callable, sync or async, given to ExamFlow) for the bot to forward, e.g. on its data channel.
The export names the handlers ("examtui.node_entered", "examtui.finalize_node"); an export
naming a handler this module does not have is refused.

HTTP runs in a worker thread (urllib), so the event loop never blocks; every call has a timeout.
A call that does not reach the controller (connection refused, no route, or a gateway answering
502-504) is retried a bounded number of times (retries, with a wait that doubles from
retry_wait); a timeout is not, since the controller may have decided the turn. When a turn still fails (the
controller unreachable, or answering an error) the candidate is not left in silence: the
handler returns the same node saying the fallback line ("I'm sorry, could you say that
again?"), with result["status"] == "error"; the failure is logged (logger "examtui_flows") and
sent with the next call that reaches the controller, which records it in the session as a
system_error (code controller_unreachable or controller_error). start() has no session to
fall back to: it raises ControllerError naming the status and the controller's message.

It needs only the Python standard library and pipecat-ai-flows (or pipecat-ai >= 1.5, which
ships Flows as pipecat.flows).
"""

from __future__ import annotations

import asyncio
import copy
import errno
import json
import logging
import socket
import urllib.error
import urllib.request
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
DEFAULT_TIMEOUT = 30.0
# A turn whose controller call fails says this (the controller's own line for a failed reply).
FALLBACK_LINE = "I'm sorry, could you say that again?"
DEFAULT_RETRIES = 2
DEFAULT_RETRY_WAIT = 0.5
# The system_error codes of a failed call (runtime.CodeControllerUnreachable, CodeControllerError).
CODE_UNREACHABLE = "controller_unreachable"
CODE_ERROR = "controller_error"
# At most this many failures wait for the next successful call; older ones stay in the log only.
MAX_PENDING_ERRORS = 20

log = logging.getLogger("examtui_flows")

# The handlers the export's function actions name (spec.PipecatHandlerNodeEnter/NodeFinish).
HANDLER_NODE_ENTERED = "examtui.node_entered"
HANDLER_FINALIZE_NODE = "examtui.finalize_node"
HANDLERS = (HANDLER_NODE_ENTERED, HANDLER_FINALIZE_NODE)

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


class ExamFlowError(ValueError):
    """The document is not an examtui pipecat-flows export this module can run, or the bot
    used the module out of order."""


class ControllerError(RuntimeError):
    """The controller refused a request or could not be reached."""

    def __init__(self, message: str, status: int = 0, code: str = ""):
        super().__init__(message)
        self.status = status
        self.code = code
        # retriable: the request did not reach the controller (refused, no route) or a gateway
        # in front of it answered 502, 503 or 504; sending it again cannot decide a turn twice.
        self.retriable = status in (502, 503, 504)


class ExamFlow:
    """An exported exam as pipecat-flows 1.x NodeConfigs, decided by examtui's controller.

    One ExamFlow runs one session. controller_url is where `examtui controller` listens; token
    is its bearer token (EXAMTUI_CONTROLLER_TOKEN), or None on loopback without one.
    """

    def __init__(self, doc: Dict[str, Any], *, controller_url: str, token: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT,
                 on_event: Optional[Callable[[Dict[str, Any]], Any]] = None, retries: int = DEFAULT_RETRIES,
                 retry_wait: float = DEFAULT_RETRY_WAIT, fallback_line: str = FALLBACK_LINE):
        _check(doc)
        if retries < 0 or retry_wait < 0:
            raise ExamFlowError(f"retries {retries} and retry_wait {retry_wait} must not be negative")
        self.retries = retries
        self.retry_wait = retry_wait
        self.fallback_line = fallback_line
        # Failed calls not yet recorded by the controller: sent with the next call that reaches it.
        self.pending_errors: List[Dict[str, str]] = []
        if not controller_url:
            raise ExamFlowError("controller_url is required (start one with: examtui controller EXAM)")
        self.doc = doc
        self.nodes: Dict[str, Dict[str, Any]] = doc["nodes"]
        self.controller_url = controller_url.rstrip("/")
        self.timeout = timeout
        self._token = token
        self.session_id: Optional[str] = None
        self.node_id: Optional[str] = None
        self.ended = False
        self.history: List[Dict[str, str]] = []
        self._said: Optional[Dict[str, Any]] = None
        self.on_event = on_event
        self._handlers = {HANDLER_NODE_ENTERED: self.node_entered, HANDLER_FINALIZE_NODE: self.finalize_node}

    @classmethod
    def from_file(cls, path: str, **kwargs: Any) -> "ExamFlow":
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f), **kwargs)

    async def start(self, *, candidate: str = "", model: str = "") -> Dict[str, Any]:
        """Starts the session on the controller; returns the NodeConfig to pass to
        FlowManager.initialize (it says the exam's opening lines)."""
        body = {k: v for k, v in (("candidate", candidate), ("model", model)) if v}
        update = await self._call("POST", "/v1/sessions", body)
        self.session_id = update["sessionId"]
        return self._apply(update)

    def candidate_said(self, text: str, confidence: Optional[float] = None, duration_ms: int = 0) -> None:
        """Records the candidate's final transcript (empty text: silence) for the next turn."""
        self._said = {"text": text or "", "confidence": confidence, "durationMs": int(duration_ms or 0)}

    async def report_observation(self, args: Dict[str, Any], flow_manager: Any = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """The report_observation handler: submits the turn and returns (result, next_node)."""
        return await self.submit_turn(args if args is not None else {}, flow_manager)

    async def no_tool_call(self, flow_manager: Any = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Reports a turn the model answered without calling report_observation."""
        return await self.submit_turn(None, flow_manager)

    async def submit_turn(self, observation: Optional[Any], flow_manager: Any = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """Posts the last candidate_said transcript with observation (the arguments as the LLM
        sent them, a dict or the raw string; None: no tool call) and applies the answer."""
        if self.session_id is None:
            raise ExamFlowError("report_observation before start()")
        if self._said is None:
            raise ExamFlowError("no candidate transcript: call candidate_said(text, confidence) from the bot's STT processor before the LLM runs")
        body = {"text": self._said["text"], "observation": observation}
        if self._said["confidence"] is not None:
            body["confidence"] = self._said["confidence"]
        if self._said["durationMs"]:
            body["durationMs"] = self._said["durationMs"]
        self._said = None
        if self.pending_errors:
            body["systemErrors"] = list(self.pending_errors)
        try:
            update = await self._call("POST", f"/v1/sessions/{self.session_id}/turns", body)
        except ControllerError as e:
            return self._failed_turn(e, flow_manager)
        self.pending_errors = []  # the controller recorded them
        next_node = self._apply(update)
        result = {
            "status": "success",
            "node": update["node"],
            "spokenText": " ".join(line["text"] for line in update["say"]),
            "ended": update["ended"],
        }
        state = getattr(flow_manager, "state", None)
        if isinstance(state, dict):
            state.setdefault("examtui", {}).update({"session": self.session_id, "node": self.node_id, "history": list(self.history)})
        return result, next_node

    def _failed_turn(self, e: "ControllerError", flow_manager: Any) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        """A turn the controller could not decide: the same node says the fallback line, and the
        failure waits for the next call that reaches the controller (and is logged now)."""
        code = CODE_UNREACHABLE if e.status == 0 else CODE_ERROR
        log.error("examtui controller call failed (%s): %s; said the fallback line", code, e)
        self.pending_errors = (self.pending_errors + [{"code": code, "message": str(e)[:500]}])[-MAX_PENDING_ERRORS:]
        node_id = self.node_id or self.doc["initial_node"]
        next_node = self.node(node_id, say=[self.fallback_line], stay=True)
        result = {"status": "error", "error": str(e), "errorStatus": e.status, "node": node_id, "spokenText": self.fallback_line, "ended": False}
        state = getattr(flow_manager, "state", None)
        if isinstance(state, dict):
            state.setdefault("examtui", {}).update({"session": self.session_id, "node": self.node_id, "history": list(self.history)})
        return result, next_node

    def node(self, node_id: str, *, say: Optional[List[str]] = None, previous: Optional[Tuple[str, str]] = None, stay: bool = False, ended: bool = False, variant: str = "", left: Optional[List[Dict[str, str]]] = None) -> Dict[str, Any]:
        """The NodeConfig of node_id that says the lines say. previous is the (node, reason) the
        exam comes from, summarised for a reset_with_summary node; stay keeps the context (the
        exam goes on in the same node); variant is the version of the node's question the
        controller drew: the model gets its task messages, never another variant's; left are
        the transitions ({from, reason, to}) the exam just made, whose nodes it finalises."""
        if node_id not in self.nodes:
            raise ExamFlowError(f"unknown node {node_id!r}")
        src = self.nodes[node_id]
        task_messages = copy.deepcopy(src["task_messages"])
        if variant:
            variants = src.get("variants") or {}
            if variant not in variants:
                raise ExamFlowError(f"node {node_id!r} has no variant {variant!r} in this export: export the exam the controller runs")
            task_messages = copy.deepcopy(variants[variant]["task_messages"])
        strategy = (src.get("context_strategy") or {}).get("strategy", "reset")
        if strategy == "reset_with_summary":
            # reset_with_summary is deprecated in pipecat-flows 1.x: reset, and carry a short
            # summary of where the exam comes from as a developer message.
            if previous is not None:
                task_messages.insert(0, {"role": "developer", "content": _summary(*previous)})
            strategy = "reset"
        if stay:
            # The node goes on: keep its context and tell the model what the candidate heard.
            strategy = "append"
            task_messages = [{"role": "developer", "content": _heard(say or [])}]
        actions: List[Dict[str, Any]] = [] if stay else self._actions(node_id, "pre_actions")
        actions += [{"type": "tts_say", "text": line} for line in (say or [])]
        post: List[Dict[str, Any]] = []
        for t in left or []:
            post += self._actions(t["from"], "post_actions", reason=t["reason"], next=t["to"])
        if ended:
            # pipecat-flows runs nothing after end_conversation: finalise first, the last node too.
            actions += post + self._actions(node_id, "post_actions", reason="ended", next="")
            post = []
            actions.append({"type": "end_conversation"})
        cfg = {
            "name": src["name"],
            "role_message": src["role_message"],
            "task_messages": task_messages,
            "functions": [self._function(fn) for fn in src["functions"]],
            "pre_actions": actions,
            "context_strategy": ContextStrategyConfig(strategy=_strategy(strategy)),
            "respond_immediately": False,
        }
        if post:
            cfg["post_actions"] = post
        return cfg

    def _actions(self, node_id: str, key: str, **fields: str) -> List[Dict[str, Any]]:
        """The export's function actions of node_id under key, as pipecat-flows 1.x action
        configs with this module's handler in place of the handler's name."""
        return [
            {"type": "function", "handler": self._handlers[a["handler"]], "node": node_id, **fields}
            for a in self.nodes[node_id].get(key) or []
            if a.get("type") == "function"
        ]

    async def node_entered(self, action: Dict[str, Any], flow_manager: Any = None) -> None:
        """The pre-action handler that emits node_entered as the bot enters a node."""
        await self._emit({"event": "node_entered", "sessionId": self.session_id, "nodeId": action["node"]}, flow_manager)

    async def finalize_node(self, action: Dict[str, Any], flow_manager: Any = None) -> None:
        """The post-action handler that finalises a node the exam has left (reason: the
        transition's, or "ended"; next: the node it went to, "" at the end)."""
        await self._emit({"event": "node_finalized", "sessionId": self.session_id, "nodeId": action["node"],
                          "reason": action.get("reason", ""), "next": action.get("next", "")}, flow_manager)

    async def _emit(self, event: Dict[str, Any], flow_manager: Any) -> None:
        state = getattr(flow_manager, "state", None)
        if isinstance(state, dict):
            state.setdefault("examtui", {}).setdefault("events", []).append(event)
        if self.on_event is not None:
            result = self.on_event(event)
            if asyncio.iscoroutine(result):
                await result

    def _apply(self, update: Dict[str, Any]) -> Dict[str, Any]:
        """Follows the controller's answer: the NodeConfig of the node it names."""
        transitions = update.get("transitions") or []
        for t in transitions:
            self.history.append({"from": t["from"], "reason": t["reason"], "to": t["to"]})
        previous = (transitions[-1]["from"], transitions[-1]["reason"]) if transitions else None
        stay = update["node"] == self.node_id and not transitions
        self.node_id = update["node"]
        self.ended = bool(update["ended"])
        return self.node(update["node"], say=[line["text"] for line in update["say"]], previous=previous, stay=stay, ended=self.ended,
                         variant=update.get("variant") or "", left=transitions)

    def _function(self, fn: Dict[str, Any]) -> Any:
        handler = self.report_observation if fn["name"] == REPORT_OBSERVATION else None
        return FlowsFunctionSchema(
            name=fn["name"],
            description=fn["description"],
            properties=copy.deepcopy(fn.get("properties") or {}),
            required=list(fn.get("required") or []),
            handler=handler,
        )

    async def _call(self, method: str, path: str, body: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        """One request, retried while it cannot reach the controller (ControllerError.retriable),
        at most retries times, with a wait doubling from retry_wait."""
        for attempt in range(self.retries + 1):
            try:
                return await asyncio.to_thread(self._request, method, path, body)
            except ControllerError as e:
                if attempt == self.retries or not e.retriable:
                    raise
                log.warning("examtui controller call failed, retrying (%d of %d): %s", attempt + 1, self.retries, e)
                await asyncio.sleep(self.retry_wait * (2 ** attempt))
        raise AssertionError("unreachable")

    def _request(self, method: str, path: str, body: Optional[Dict[str, Any]]) -> Dict[str, Any]:
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(self.controller_url + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self._token:
            req.add_header("Authorization", "Bearer " + self._token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                detail = json.loads(e.read().decode("utf-8"))
            except ValueError:
                detail = {}
            raise ControllerError(f"examtui controller: {method} {path}: {e.code} {detail.get('error') or e.reason}", e.code, detail.get("code", "")) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            err = ControllerError(f"examtui controller at {self.controller_url} unreachable: {e}")
            # Nothing reached the controller: the request can be sent again safely. A timeout
            # or a connection cut mid-way may have been decided, so it is not retried.
            err.retriable = isinstance(reason, (ConnectionRefusedError, socket.gaierror)) or getattr(reason, "errno", None) in (errno.EHOSTUNREACH, errno.ENETUNREACH)
            raise err from None


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
        for key in ("pre_actions", "post_actions"):
            for a in node.get(key) or []:
                if a.get("type") == "function" and a.get("handler") not in HANDLERS:
                    raise ExamFlowError(f"node {node_id!r}: {key} names handler {a.get('handler')!r}, which this module does not have (it has {HANDLERS})")


def _strategy(name: str) -> Any:
    if name == "append":
        return ContextStrategy.APPEND
    if name == "reset":
        return ContextStrategy.RESET
    raise ExamFlowError(f"unknown context strategy {name!r}")


def _summary(node_id: str, reason: str) -> str:
    return f"Previous part of the exam: {node_id} (ended: {reason.replace('_', ' ')}). Do not refer back to it unless the candidate does."


def _heard(lines: List[str]) -> str:
    said = " ".join(lines) if lines else "(nothing)"
    return f"The examiner system said to the candidate: {said!r}. Wait for the candidate's answer, then call report_observation."
