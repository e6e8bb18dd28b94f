package runtime

import (
	"fmt"
	"math"
	"strings"
)

// EventSpeechUsage records one request a paid speech stage served: the seconds of audio sent to
// the recogniser, or the characters sent to the voice. The voice path (local microphone, room
// bot, worker) records one per request, so an exam's speech cost adds up from its events like
// the examiner's tokens do. It goes to the examiners and the store, never to the candidate.
const EventSpeechUsage EventType = "speech_usage"

// SpeechUsage is what one speech request consumed.
type SpeechUsage struct {
	Stage SpeechStage
	// Model is the stage's model as configured (the price table's key).
	Model string
	// Seconds is the audio sent to the recogniser (stt).
	Seconds float64
	// Characters is the text sent to the voice, in Unicode characters (tts).
	Characters int64
}

// validate refuses an unknown stage, a missing model and a count that is negative, not finite or
// belongs to the other stage.
func (u SpeechUsage) validate() error {
	switch {
	case !u.Stage.Valid():
		return fmt.Errorf("%w: speech usage stage %q", ErrInvalidField, u.Stage)
	case strings.TrimSpace(u.Model) == "":
		return fmt.Errorf("%w: speech usage without a model", ErrInvalidField)
	case u.Seconds < 0 || math.IsNaN(u.Seconds) || math.IsInf(u.Seconds, 0) || u.Characters < 0:
		return fmt.Errorf("%w: speech usage %v s, %d characters", ErrInvalidField, u.Seconds, u.Characters)
	case u.Stage == SpeechSTT && u.Characters != 0, u.Stage == SpeechTTS && u.Seconds != 0:
		return fmt.Errorf("%w: %s usage counts %v s and %d characters", ErrInvalidField, u.Stage, u.Seconds, u.Characters)
	}
	return nil
}

// SpeechUsagePayload is one speech request's usage.
type SpeechUsagePayload struct {
	Stage      SpeechStage `json:"stage"`
	Model      string      `json:"model"`
	Seconds    float64     `json:"seconds,omitempty"`
	Characters int64       `json:"characters,omitempty"`
	NodeID     string      `json:"nodeId,omitempty"`
}

// EventType implements Payload.
func (*SpeechUsagePayload) EventType() EventType { return EventSpeechUsage }

// RecordSpeechUsage records one speech request as a speech_usage event. It is taken after the
// exam has ended too (the closing line is spoken after exam_completed), until Close.
func (c *Controller) RecordSpeechUsage(u SpeechUsage) error {
	if err := u.validate(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	p := &SpeechUsagePayload{Stage: u.Stage, Model: strings.TrimSpace(u.Model), Seconds: u.Seconds, Characters: u.Characters}
	if c.node != nil {
		p.NodeID = c.node.NodeID
	}
	c.emit(p)
	return c.sinkErr
}
