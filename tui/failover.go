package tui

import (
	"fmt"

	"github.com/examtui/examtui/runtime"
)

// examinerSwitchedText says what happened when the examiner kept failing: the exam goes on with
// the fallback examiner, or it was ended.
func examinerSwitchedText(v *runtime.ExaminerSwitchedPayload) string {
	if v.To == "" {
		return fmt.Sprintf("examiner %s failed %d turns in a row: exam ended (%s policy)", cleanText(v.From), v.Failures, cleanText(v.Policy.String()))
	}
	return fmt.Sprintf("examiner %s failed %d turns in a row: the %s examiner runs the rest of the exam", cleanText(v.From), v.Failures, cleanText(v.To))
}
