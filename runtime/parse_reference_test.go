package runtime

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// refDecoder decodes every part with encoding/json, as ParseObservation was written first. The
// fast decoders must agree with it on every input (FuzzParseAgreesWithReference).
var refDecoder = observationDecoder{
	field: func(r *rawObservation, i int, val []byte) error {
		targets := [...]any{&r.Signals, &r.CommandDetected, &r.AnswerQuality, &r.NeedsFollowUp, &r.FollowUpType,
			&r.EvidenceSufficient, &r.AnxietyDetected, &r.DistressDetected, &r.RapportMove, &r.DialogueMove,
			&r.Misconceptions, &r.SpokenText}
		return json.Unmarshal(val, targets[i])
	},
	signal: func(item []byte) (rs rawSignal, err error) {
		err = json.Unmarshal(item, &rs)
		return rs, err
	},
	misconception: func(item []byte) (rm rawMisconception, err error) {
		err = json.Unmarshal(item, &rm)
		return rm, err
	},
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
		o2, p2, e2 := refDecoder.parse(raw, node, exam)
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
