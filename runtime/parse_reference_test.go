package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/spec"
)

// refParseObservation is ParseObservation as it was written first, decoding every field with
// encoding/json. The fast decoder must agree with it on every input (FuzzParseAgreesWithReference).
func refParseObservation(raw []byte, node *spec.CompiledNode, exam *spec.Exam) (Observation, []string, error) {
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
	targets := [...]any{&r.Signals, &r.CommandDetected, &r.AnswerQuality, &r.NeedsFollowUp, &r.FollowUpType,
		&r.EvidenceSufficient, &r.AnxietyDetected, &r.DistressDetected, &r.RapportMove, &r.DialogueMove,
		&r.Misconceptions, &r.SpokenText}
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
		if err := json.Unmarshal(val, targets[i]); err != nil {
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
	obs.Signals = refParseSignals(*r.Signals, node, exam, &problems)
	if r.Misconceptions != nil {
		obs.Misconceptions = refParseMisconceptions(*r.Misconceptions, &problems)
	}
	return obs, problems, nil
}

func refParseSignals(items []json.RawMessage, node *spec.CompiledNode, exam *spec.Exam, problems *[]string) []Signal {
	out := make([]Signal, 0, len(items))
	for i, item := range items {
		var rs rawSignal
		if err := json.Unmarshal(item, &rs); err != nil {
			*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: %v", i, err))
			continue
		}
		if rs.SignalType == nil || rs.Excerpt == nil || rs.Confidence == nil {
			*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: signalType, excerpt and confidence are required", i))
			continue
		}
		st := *rs.SignalType
		if !nodeListensFor(node, st) {
			if exam != nil && exam.Signal(st) != nil {
				*problems = append(*problems, fmt.Sprintf("signals[%d] dropped: %q is not listened for in this node", i, st))
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

func refParseMisconceptions(items []json.RawMessage, problems *[]string) []Misconception {
	var out []Misconception
	for i, item := range items {
		var rm rawMisconception
		if err := json.Unmarshal(item, &rm); err != nil {
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

// FuzzParseAgreesWithReference holds the fast decoder to encoding/json: on any input both
// accept or reject alike (with the same named error), produce the same observation and report
// the same problems (decode-error wording aside).
func FuzzParseAgreesWithReference(f *testing.F) {
	exam := basicExam(f)
	node := exam.Node("plan")
	const base = `"answerQuality":"partial","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":"Go on."`
	for _, seed := range []string{
		`{"signals":[],` + base + `}`,
		`{"signals":[{"signalType":"names_risk","rubricLevel":"analysis","excerpt":"untested","confidence":0.9,"scaffoldingIntensity":2,"scaffoldingEffective":true}],"commandDetected":"repeat","answerQuality":"substantive","needsFollowUp":true,"followUpType":"probe","evidenceSufficient":true,"anxietyDetected":true,"distressDetected":true,"rapportMove":"acknowledgement","dialogueMove":"paraphrase","misconceptions":[{"concept":"c","misconception":"m","correction":"k"}],"spokenText":"Hi."}`,
		`{"signals":[{"SignalType":"names_risk","EXCERPT":"x","confidence":1,"excerpt":"y"}],` + base + `}`,
		`{"signals":[{"signal\u0054ype":"names_risk","excerpt":"caf\u00e9 \"q\"","confidence":-0}],"spoken\u0054ext":"x",` + base + `}`,
		`{"signals":[null,5,"x",[],{"signalType":null,"excerpt":"x","confidence":0.5}],` + base + `}`,
		`{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":1e400}],` + base + `}`,
		`{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":"high"}],` + base + `}`,
		`{"signals":[{"signalType":"names_risk","excerpt":"x","confidence":0.5,"scaffoldingIntensity":2.6,"scaffoldingEffective":null}],` + base + `}`,
		`{"signals":[],"needsFollowUp":null,` + base + `}`,
		`{"signals":[],"spokenText":7,` + base + `}`,
		`{"signals":{},` + base + `}`,
		`{"signals":[],"misconceptions":null,` + base + `}`,
		`{"signals":[],"misconceptions":[{"concept":"c","misconception":"m"},{"Concept":"a","MISCONCEPTION":"b","correction":"c"},3],` + base + `}`,
		`{"signals":[],"spokenText":"\xff\xfe bad utf8",` + base + `}`,
		`{"signals":[],"answerQuality":"partial","answerQuality":"silence","needsFollowUp":false,"evidenceSufficient":false,"anxietyDetected":false,"spokenText":""}`,
		`{"signals":null,` + base + `}`, `{"signals":[] , "spokenText" : "a" ,` + base + ` }`,
		`[]`, `null`, ``, `{`, `"x"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o1, p1, e1 := ParseObservation(raw, node, exam)
		o2, p2, e2 := refParseObservation(raw, node, exam)
		if (e1 == nil) != (e2 == nil) {
			t.Fatalf("fast err %v, reference err %v", e1, e2)
		}
		if e1 != nil {
			for _, sentinel := range []error{ErrMalformedArguments, ErrMissingField, ErrInvalidField} {
				if errors.Is(e1, sentinel) != errors.Is(e2, sentinel) {
					t.Fatalf("fast err %v, reference err %v", e1, e2)
				}
			}
			return
		}
		if !reflect.DeepEqual(o1, o2) {
			t.Fatalf("observations differ:\nfast %+v\nref  %+v", o1, o2)
		}
		if len(p1) != len(p2) {
			t.Fatalf("problems differ:\nfast %q\nref  %q", p1, p2)
		}
		for i := range p1 {
			if canonProblem(p1[i]) != canonProblem(p2[i]) {
				t.Fatalf("problem %d differs:\nfast %q\nref  %q", i, p1[i], p2[i])
			}
		}
	})
}

// canonProblem hides the wording of a decode error ("signals[2] dropped: json: cannot …").
func canonProblem(p string) string {
	i := strings.Index(p, " dropped: ")
	if i < 0 {
		return p
	}
	rest := p[i+len(" dropped: "):]
	for _, known := range []string{"signalType, excerpt", "concept, misconception", "unknown signal type", `"`} {
		if strings.HasPrefix(rest, known) {
			return p
		}
	}
	return p[:i] + " dropped: <decode error>"
}
