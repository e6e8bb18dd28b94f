package app

import (
	"log/slog"
	"os"

	"github.com/examtui/examtui/runtime"
)

// rehearsalGates reads the BOT_* variables for a rehearsal run (typed or microphone input in
// the console or headless): they override the spec's gates so an author can try other pacing
// without editing the exam. A room exam (input "room") always runs on the spec's values: the
// spec wins where a candidate sits the exam. A malformed value is an error naming the variable.
func rehearsalGates(input runtime.InputSource, log *slog.Logger) (runtime.Option, error) {
	ov, err := runtime.GateOverridesFromEnv(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	if len(ov.Set) == 0 {
		return nil, nil
	}
	if input == runtime.SourceRoom {
		if log != nil {
			log.Warn("BOT_* pacing overrides ignored in a room exam: the spec's gates apply", "set", ov.Set)
		}
		return nil, nil
	}
	if log != nil {
		log.Info("rehearsal pacing overrides from the environment", "set", ov.Set)
	}
	return runtime.WithGateOverrides(ov), nil
}

// Typing tells the controller the candidate is typing (tui.TypingReporter): the silence
// check-ins wait for someone who is writing an answer.
func (x *Exam) Typing() error {
	if x.Controller == nil {
		return nil
	}
	x.Controller.CandidateActive()
	return nil
}
