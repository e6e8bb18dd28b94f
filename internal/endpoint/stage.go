package endpoint

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/examtui/examtui/internal/httpbound"
)

// Stage is one of the places examtui calls a model server: the examiner LLM, speech
// recognition, speech synthesis and the marking panel. Each has its own endpoint (base URL,
// key, model, timeout).
type Stage int

// Stages. The zero value is unknown.
const (
	StageUnknown Stage = iota
	StageLLM
	StageSTT
	StageTTS
	// StageMark is the model panel that proposes marks after an exam (marking/panel).
	StageMark
)

// Stages lists every stage in the order doctor checks them.
var Stages = []Stage{StageLLM, StageSTT, StageTTS, StageMark}

func (s Stage) String() string {
	switch s {
	case StageLLM:
		return "llm"
	case StageSTT:
		return "stt"
	case StageTTS:
		return "tts"
	case StageMark:
		return "mark"
	default:
		return fmt.Sprintf("Stage(%d)", int(s))
	}
}

// ParseStage parses "llm", "stt", "tts" or "mark" (any case).
func ParseStage(s string) (Stage, error) {
	for _, st := range Stages {
		if strings.EqualFold(strings.TrimSpace(s), st.String()) {
			return st, nil
		}
	}
	return StageUnknown, fmt.Errorf("%w: %q (want llm, stt, tts or mark)", ErrUnknownStage, s)
}

// envPrefix is the stage's part of its variables' names: EXAMTUI_LLM_, EXAMTUI_STT_, EXAMTUI_TTS_.
func (s Stage) envPrefix() string { return "EXAMTUI_" + strings.ToUpper(s.String()) + "_" }

// EnvBaseURL, EnvAPIKey, EnvModel and EnvTimeout name the stage's own variables.
func (s Stage) EnvBaseURL() string { return s.envPrefix() + "BASE_URL" }

// EnvAPIKey is EXAMTUI_<STAGE>_API_KEY.
func (s Stage) EnvAPIKey() string { return s.envPrefix() + "API_KEY" }

// EnvModel is EXAMTUI_<STAGE>_MODEL.
func (s Stage) EnvModel() string { return s.envPrefix() + "MODEL" }

// EnvTimeout is EXAMTUI_<STAGE>_TIMEOUT. For the LLM it is the same variable as the examiner's
// turn timeout (llm.EnvTimeout), so the one setting bounds both.
func (s Stage) EnvTimeout() string { return s.envPrefix() + "TIMEOUT" }

// ReplyKind is the kind of reply the stage's server sends, which sets its size cap.
func (s Stage) ReplyKind() httpbound.Kind {
	switch s {
	case StageLLM:
		return httpbound.KindLLM
	case StageSTT:
		return httpbound.KindSTT
	case StageTTS:
		return httpbound.KindTTS
	case StageMark:
		return httpbound.KindPanel
	}
	return httpbound.KindUnknown
}

// Client is the bounded HTTP client of the stage's endpoint: its size cap, and its timeout
// (the kind's default when the endpoint sets none) covering the whole reply.
func (e Endpoint) Client() *http.Client {
	return httpbound.MustClient(e.Stage.ReplyKind(), nil, e.Timeout)
}
