"""Drives examtui_flows like a Pipecat bot, one JSON line per step, for examtui's parity test.

Reads steps on stdin and writes one JSON line per step on stdout:
  {"op": "start"}                                           -> the controller's first answer
  {"op": "turn", "text": ..., "confidence": ..., "durationMs": ..., "observation": ...}
      candidate_said(text, confidence), then the current NodeConfig's report_observation
      handler with the observation (as the FlowManager calls it), or no_tool_call() for none.
Each answer: {"sessionId", "node", "ended", "spokenText", "say": [...]} or {"error": ...}.
Environment: EXAMTUI_FLOWS_JSON (the export), EXAMTUI_CONTROLLER_URL, EXAMTUI_CONTROLLER_TOKEN.
"""

import asyncio
import json
import os
import sys

import pipecat_flows_standin

pipecat_flows_standin.install()
import examtui_flows  # noqa: E402


class FlowManagerStandIn:
    def __init__(self):
        self.state = {}


async def main() -> None:
    exam = examtui_flows.ExamFlow.from_file(
        os.environ["EXAMTUI_FLOWS_JSON"], controller_url=os.environ["EXAMTUI_CONTROLLER_URL"],
        token=os.environ.get("EXAMTUI_CONTROLLER_TOKEN"))
    fm = FlowManagerStandIn()
    node = None
    for line in sys.stdin:
        step = json.loads(line)
        try:
            if step["op"] == "start":
                node = await exam.start(candidate="parity")
                out = {"sessionId": exam.session_id, "node": node["name"], "ended": exam.ended,
                       "say": [a["text"] for a in node["pre_actions"] if a["type"] == "tts_say"]}
            else:
                exam.candidate_said(step["text"], step.get("confidence"), step.get("durationMs", 0))
                obs = step.get("observation")
                if obs is None:
                    result, node = await exam.no_tool_call(fm)
                else:
                    handler = [f for f in node["functions"] if f.name == "report_observation"][0].handler
                    result, node = await handler(obs, fm)
                out = {"sessionId": exam.session_id, "node": node["name"], "ended": result["ended"],
                       "spokenText": result["spokenText"],
                       "say": [a["text"] for a in node["pre_actions"] if a["type"] == "tts_say"]}
        except examtui_flows.ControllerError as e:
            out = {"error": str(e), "status": e.status, "code": e.code}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
