package runtime_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/runtimetest"
)

// TestCandidateViewEveryType checks, for every event type, whether the candidate sees it and
// exactly what it sees (golden files in testdata/candidate_view).
func TestCandidateViewEveryType(t *testing.T) {
	evs := runtimetest.SampleEvents(t)
	covered := map[runtime.EventType]bool{}
	for _, ev := range evs {
		covered[ev.Event] = true
	}
	for _, typ := range runtime.EventTypes {
		if !covered[typ] {
			t.Fatalf("sampleEvents has no %s event: add one so its candidate view is tested", typ)
		}
	}
	for _, ev := range evs {
		t.Run(ev.Event.String(), func(t *testing.T) {
			view, ok := runtime.CandidateView(ev)
			if ok != runtimetest.CandidateTypes[ev.Event] {
				t.Fatalf("delivered to candidate = %v, want %v", ok, runtimetest.CandidateTypes[ev.Event])
			}
			golden := filepath.Join("testdata", "candidate_view", ev.Event.String()+".json")
			var got []byte
			if ok {
				if view.Event != ev.Event || view.Seq != ev.Seq || view.SessionID != ev.SessionID || !view.Timestamp.Equal(ev.Timestamp) {
					t.Fatalf("envelope changed: %+v -> %+v", ev, view)
				}
				if _, err := view.Decode(); err != nil {
					t.Fatalf("view payload does not decode as %s: %v", ev.Event, err)
				}
				var buf bytes.Buffer
				if err := json.Indent(&buf, view.Payload, "", "  "); err != nil {
					t.Fatal(err)
				}
				got = append(buf.Bytes(), '\n')
			} else {
				got = []byte("withheld\n")
			}
			testutil.Golden(t, golden, got)
		})
	}
}

// TestCandidateViewNeverLeaks checks that no assessment vocabulary survives in anything the
// candidate sees, whatever the golden files say.
func TestCandidateViewNeverLeaks(t *testing.T) {
	for _, ev := range runtimetest.SampleEvents(t) {
		view, ok := runtime.CandidateView(ev)
		if !ok {
			continue
		}
		for _, word := range runtimetest.CandidateNeverSees {
			if strings.Contains(string(view.Payload), word) {
				t.Errorf("%s view contains %q: %s", ev.Event, word, view.Payload)
			}
		}
	}
}

func TestCandidateViewWithholdsUndecodable(t *testing.T) {
	cases := []runtime.Event{
		{Event: runtime.EventSpoken, Seq: 1, Payload: json.RawMessage(`{"text":`)},
		{Event: runtime.EventNodeEntered, Seq: 2, Payload: json.RawMessage(`[]`)},
		{Event: "made_up", Seq: 3, Payload: json.RawMessage(`{}`)},
	}
	for _, ev := range cases {
		if view, ok := runtime.CandidateView(ev); ok {
			t.Errorf("%s %s: delivered %s, want withheld", ev.Event, ev.Payload, view.Payload)
		}
	}
}
