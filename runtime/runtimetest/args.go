package runtimetest

import (
	"encoding/json"

	"github.com/examtui/examtui/runtime"
)

// Args is report_observation arguments for a scripted examiner reply: String gives the JSON,
// with no signals and a partial answer where the test leaves them out.
type Args runtime.Observation

func (a Args) String() string {
	if a.Signals == nil {
		a.Signals = []runtime.Signal{}
	}
	if a.AnswerQuality == "" {
		a.AnswerQuality = "partial"
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}
