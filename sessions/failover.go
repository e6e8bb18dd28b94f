package sessions

import (
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// examinerSwitchedRecord lists an examiner failover with the errors the exam survived, so the
// record says which part of the exam the fallback examiner ran.
func examinerSwitchedRecord(ev runtime.Event, p *runtime.ExaminerSwitchedPayload) ErrorRecord {
	msg := fmt.Sprintf("examiner %s failed %d turns in a row; the %s examiner ran the rest of the exam", p.From, p.Failures, p.To)
	if p.To == "" {
		msg = fmt.Sprintf("examiner %s failed %d turns in a row; the exam was ended (policy %s)", p.From, p.Failures, p.Policy)
	}
	if p.LastError != "" {
		msg += " (last error: " + p.LastError + ")"
	}
	return ErrorRecord{Seq: ev.Seq, At: ev.Timestamp, Code: runtime.EventExaminerSwitched.String(), Message: msg, NodeID: p.NodeID}
}
