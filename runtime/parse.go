package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/examtui/examtui/spec"
)

// maxMisconceptionRunes bounds each misconception field so a runaway reply cannot bloat the ledger.
const maxMisconceptionRunes = 300

// rawObservation mirrors the report_observation schema with pointers, so a missing required
// field can be told apart from a zero value.
type rawObservation struct {
	Signals            *[]json.RawMessage `json:"signals"`
	CommandDetected    *string            `json:"commandDetected"`
	AnswerQuality      *string            `json:"answerQuality"`
	NeedsFollowUp      *bool              `json:"needsFollowUp"`
	FollowUpType       *string            `json:"followUpType"`
	EvidenceSufficient *bool              `json:"evidenceSufficient"`
	AnxietyDetected    *bool              `json:"anxietyDetected"`
	DistressDetected   *bool              `json:"distressDetected"`
	RapportMove        *string            `json:"rapportMove"`
	DialogueMove       *string            `json:"dialogueMove"`
	Misconceptions     *[]json.RawMessage `json:"misconceptions"`
	SpokenText         *string            `json:"spokenText"`
}

type rawSignal struct {
	SignalType           *string  `json:"signalType"`
	RubricLevel          *string  `json:"rubricLevel"`
	Excerpt              *string  `json:"excerpt"`
	Confidence           *float64 `json:"confidence"`
	ScaffoldingIntensity *float64 `json:"scaffoldingIntensity"`
	ScaffoldingEffective *bool    `json:"scaffoldingEffective"`
}

type rawMisconception struct {
	Concept       *string `json:"concept"`
	Misconception *string `json:"misconception"`
	Correction    *string `json:"correction"`
}

var knownObservationFields = []string{
	"signals", "commandDetected", "answerQuality", "needsFollowUp", "followUpType",
	"evidenceSufficient", "anxietyDetected", "distressDetected", "rapportMove", "dialogueMove",
	"misconceptions", "spokenText",
}

// AnswerQualities lists the valid answer qualities.
var AnswerQualities = []AnswerQuality{QualitySubstantive, QualityPartial, QualityOffTopic, QualitySilence, QualityUnclear}

// Valid reports whether q is a known answer quality.
func (q AnswerQuality) Valid() bool { return slices.Contains(AnswerQualities, q) }

// Valid reports whether c is a known command.
func (c Command) Valid() bool { return slices.Contains(Commands, c) }

// ParseObservation validates report_observation arguments against the schema
// (pipecat-adapter §3) and the exam's vocabulary (a signal of any node is kept, wherever it
// is heard). Problems the controller can repair (an unknown signal type, an invalid optional enum, an over-long excerpt, a confidence outside
// 0..1) are fixed or dropped and listed in the returned problems; a reply that is not a JSON
// object, has a wrongly typed field or lacks a required field is an error.
func ParseObservation(raw []byte, node *spec.CompiledNode, exam *spec.Exam) (Observation, []string, error) {
	return fastDecoder.parse(raw, node, exam)
}

// observationDecoder decodes the bytes of report_observation's parts: a top-level field by its
// index in knownObservationFields, a signals[] item, a misconceptions[] item. Everything after
// decoding (required fields, repairs, problems) is the same whatever decodes; the tests hold
// the fast decoders to encoding/json through a second observationDecoder
// (FuzzParseAgreesWithReference).
type observationDecoder struct {
	field         func(r *rawObservation, i int, val []byte) error
	signal        func(item []byte) (rawSignal, error)
	misconception func(item []byte) (rawMisconception, error)
}

// fastDecoder is ParseObservation's: the scanners of jsonscan.go, without reflection.
var fastDecoder = observationDecoder{field: (*rawObservation).set, signal: decodeSignal, misconception: decodeMisconception}

func (d observationDecoder) parse(raw []byte, node *spec.CompiledNode, exam *spec.Exam) (Observation, []string, error) {
	var problems []string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Observation{}, nil, fmt.Errorf("%w: empty arguments", ErrMalformedArguments)
	}
	if !json.Valid(raw) {
		var v any // for the decoder's description of what is wrong, and where
		err := json.Unmarshal(raw, &v)
		return Observation{}, nil, fmt.Errorf("%w: %w", ErrMalformedArguments, err)
	}
	if raw[0] != '{' {
		return Observation{}, nil, fmt.Errorf("%w: arguments are not a JSON object", ErrMalformedArguments)
	}
	// One pass over the validated document: each known field is decoded from its own bytes.
	var r rawObservation
	var signalsNull bool
	var ferr error
	eachField(raw, func(key, val []byte) {
		if ferr != nil {
			return
		}
		i := knownFieldIndex(key)
		if i < 0 {
			problems = append(problems, fmt.Sprintf("unknown field %q ignored", TruncateRunes(string(key), 60)))
			return
		}
		if i == 0 && string(val) == "null" {
			signalsNull = true
			return
		}
		if err := d.field(&r, i, val); err != nil {
			ferr = fmt.Errorf("%w: %s: %w", ErrInvalidField, knownObservationFields[i], err)
		}
	})
	if ferr != nil {
		return Observation{}, problems, ferr
	}
	slices.Sort(problems)
	var missing []string
	if r.Signals == nil {
		if signalsNull {
			// Models often send null for "none"; that is an empty list, not a broken reply.
			problems = append(problems, "signals null treated as empty")
			r.Signals = &[]json.RawMessage{}
		} else {
			missing = append(missing, "signals")
		}
	}
	if r.AnswerQuality == nil {
		missing = append(missing, "answerQuality")
	}
	if r.NeedsFollowUp == nil {
		missing = append(missing, "needsFollowUp")
	}
	if r.EvidenceSufficient == nil {
		missing = append(missing, "evidenceSufficient")
	}
	if r.AnxietyDetected == nil {
		missing = append(missing, "anxietyDetected")
	}
	if r.SpokenText == nil {
		missing = append(missing, "spokenText")
	}
	if len(missing) > 0 {
		return Observation{}, problems, fmt.Errorf("%w: %v", ErrMissingField, missing)
	}
	obs := Observation{
		AnswerQuality:      AnswerQuality(*r.AnswerQuality),
		NeedsFollowUp:      *r.NeedsFollowUp,
		EvidenceSufficient: *r.EvidenceSufficient,
		AnxietyDetected:    *r.AnxietyDetected,
		SpokenText:         *r.SpokenText,
	}
	if !obs.AnswerQuality.Valid() {
		return Observation{}, problems, fmt.Errorf("%w: answerQuality %q", ErrInvalidField, *r.AnswerQuality)
	}
	if r.DistressDetected != nil {
		obs.DistressDetected = *r.DistressDetected
	}
	if r.CommandDetected != nil && *r.CommandDetected != "" {
		if c := Command(*r.CommandDetected); c.Valid() {
			obs.CommandDetected = c
		} else {
			problems = append(problems, fmt.Sprintf("unknown commandDetected %q ignored", *r.CommandDetected))
		}
	}
	obs.FollowUpType = enumField("followUpType", r.FollowUpType, FollowUpTypes, &problems)
	obs.RapportMove = enumField("rapportMove", r.RapportMove, RapportMoves, &problems)
	obs.DialogueMove = enumField("dialogueMove", r.DialogueMove, DialogueMoves, &problems)
	obs.Signals = d.parseSignals(*r.Signals, node, exam, &problems)
	if r.Misconceptions != nil {
		obs.Misconceptions = d.parseMisconceptions(*r.Misconceptions, &problems)
	}
	return obs, problems, nil
}

// set decodes the value of knownObservationFields[i].
func (r *rawObservation) set(i int, val []byte) error {
	switch i {
	case 0:
		return decodeArray(val, &r.Signals)
	case 1:
		return decodeString(val, &r.CommandDetected)
	case 2:
		return decodeString(val, &r.AnswerQuality)
	case 3:
		return decodeBool(val, &r.NeedsFollowUp)
	case 4:
		return decodeString(val, &r.FollowUpType)
	case 5:
		return decodeBool(val, &r.EvidenceSufficient)
	case 6:
		return decodeBool(val, &r.AnxietyDetected)
	case 7:
		return decodeBool(val, &r.DistressDetected)
	case 8:
		return decodeString(val, &r.RapportMove)
	case 9:
		return decodeString(val, &r.DialogueMove)
	case 10:
		return decodeArray(val, &r.Misconceptions)
	case 11:
		return decodeString(val, &r.SpokenText)
	}
	return nil
}

var (
	signalFields        = []string{"signalType", "rubricLevel", "excerpt", "confidence", "scaffoldingIntensity", "scaffoldingEffective"}
	misconceptionFields = []string{"concept", "misconception", "correction"}
)

// decodeSignal decodes one signals[] item; unknown members are ignored, as the schema's
// optional extensions may grow.
func decodeSignal(item []byte) (rawSignal, error) {
	var rs rawSignal
	err := decodeObject(item, signalFields, func(i int, val []byte) error {
		switch i {
		case 0:
			return decodeString(val, &rs.SignalType)
		case 1:
			return decodeString(val, &rs.RubricLevel)
		case 2:
			return decodeString(val, &rs.Excerpt)
		case 3:
			return decodeNumber(val, &rs.Confidence)
		case 4:
			return decodeNumber(val, &rs.ScaffoldingIntensity)
		default:
			return decodeBool(val, &rs.ScaffoldingEffective)
		}
	})
	return rs, err
}

func decodeMisconception(item []byte) (rawMisconception, error) {
	var rm rawMisconception
	err := decodeObject(item, misconceptionFields, func(i int, val []byte) error {
		switch i {
		case 0:
			return decodeString(val, &rm.Concept)
		case 1:
			return decodeString(val, &rm.Misconception)
		default:
			return decodeString(val, &rm.Correction)
		}
	})
	return rm, err
}

func enumField(name string, v *string, allowed []string, problems *[]string) string {
	if v == nil || *v == "" {
		return ""
	}
	if slices.Contains(allowed, *v) {
		return *v
	}
	*problems = append(*problems, fmt.Sprintf("invalid %s %q ignored", name, *v))
	return ""
}

func (d observationDecoder) parseSignals(items []json.RawMessage, node *spec.CompiledNode, exam *spec.Exam, problems *[]string) []Signal {
	out := make([]Signal, 0, len(items))
	for i, item := range items {
		rs, err := d.signal(item)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: %v", i, err))
			continue
		}
		if rs.SignalType == nil || rs.Excerpt == nil || rs.Confidence == nil {
			*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: signalType, excerpt and confidence are required", i))
			continue
		}
		st := *rs.SignalType
		// Evidence counts whichever node it is heard in: a signal of any node of the exam is
		// kept (the ledger records where it was heard); only a type no node listens for is
		// dropped.
		if !node.ListensFor(st) && (exam == nil || !exam.ListenedFor(st)) {
			if exam != nil && exam.Signal(st) != nil {
				*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: %q is not listened for in any node", i, st))
			} else {
				*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: unknown signal type %q", i, TruncateRunes(st, 60)))
			}
			continue
		}
		s := Signal{SignalType: st, Confidence: *rs.Confidence}
		if s.Confidence < 0 || s.Confidence > 1 || math.IsNaN(s.Confidence) {
			*problems = append(*problems, fmt.Sprintf("signals[%d] confidence %v clamped to 0..1", i, s.Confidence))
			s.Confidence = math.Max(0, math.Min(1, s.Confidence))
		}
		s.Excerpt = TruncateRunes(*rs.Excerpt, MaxExcerptRunes)
		if s.Excerpt != *rs.Excerpt {
			*problems = append(*problems, fmt.Sprintf("signals[%d] excerpt capped at %d characters", i, MaxExcerptRunes))
		}
		if rs.RubricLevel != nil && *rs.RubricLevel != "" {
			if def := examSignal(exam, st); def != nil && slices.Contains(def.Levels, *rs.RubricLevel) {
				s.RubricLevel = *rs.RubricLevel
			} else {
				*problems = append(*problems, fmt.Sprintf("signals[%d] rubricLevel %q is not a level of %s", i, TruncateRunes(*rs.RubricLevel, 60), st))
			}
		}
		if rs.ScaffoldingIntensity != nil {
			v := int(math.Round(math.Max(0, math.Min(3, *rs.ScaffoldingIntensity))))
			if float64(v) != *rs.ScaffoldingIntensity {
				*problems = append(*problems, fmt.Sprintf("signals[%d] scaffoldingIntensity %v clamped to %d", i, *rs.ScaffoldingIntensity, v))
			}
			s.ScaffoldingIntensity = &v
		}
		s.ScaffoldingEffective = rs.ScaffoldingEffective
		out = append(out, s)
	}
	return out
}

func (d observationDecoder) parseMisconceptions(items []json.RawMessage, problems *[]string) []Misconception {
	var out []Misconception
	for i, item := range items {
		rm, err := d.misconception(item)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("misconceptions[%d] dropped: %v", i, err))
			continue
		}
		if rm.Concept == nil || rm.Misconception == nil || rm.Correction == nil {
			*problems = append(*problems, fmt.Sprintf("misconceptions[%d] dropped: concept, misconception and correction are required", i))
			continue
		}
		out = append(out, Misconception{
			Concept:       TruncateRunes(*rm.Concept, maxMisconceptionRunes),
			Misconception: TruncateRunes(*rm.Misconception, maxMisconceptionRunes),
			Correction:    TruncateRunes(*rm.Correction, maxMisconceptionRunes),
		})
	}
	return out
}

func examSignal(exam *spec.Exam, st string) *spec.EvidenceDef {
	if exam == nil {
		return nil
	}
	return exam.Signal(st)
}

// knownFieldIndex returns the index of key in knownObservationFields, or -1. Keys with escapes
// are compared after unquoting.
func knownFieldIndex(key []byte) int {
	k := string(key) // no allocation: the conversion is only compared
	if bytes.IndexByte(key, '\\') >= 0 {
		if u, err := strconv.Unquote(`"` + k + `"`); err == nil {
			k = u
		}
	}
	for i, f := range knownObservationFields {
		if k == f {
			return i
		}
	}
	return -1
}

// eachField calls fn with each top-level key (without quotes, still escaped) and raw value of
// a JSON object already checked with json.Valid.
func eachField(b []byte, fn func(key, val []byte)) {
	i := skipWS(b, 0) + 1 // past '{'
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i = skipWS(b, i+1)
		}
		kend, ok := scanString(b, i)
		if !ok {
			return
		}
		key := b[i+1 : kend-1]
		i = skipWS(b, kend) + 1 // past ':'
		i = skipWS(b, i)
		vend := skipValue(b, i)
		fn(key, b[i:vend])
		i = vend
	}
}

// skipValue returns the index after the (valid) JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := scanString(b, i)
		return end
	case '{', '[':
		if end, ok := containerEnd(b, i); ok {
			return end
		}
		return len(b)
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		return j
	}
}
