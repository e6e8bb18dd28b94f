package headless_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

// TestGoldenEventStreams pins the full event stream of scripted runs: every envelope, in seq
// order, with the measured latencies zeroed (they are the only wall-clock values).
func TestGoldenEventStreams(t *testing.T) {
	for _, name := range []string{"../../examples/hotel-rehearsal.yaml", "testdata/admin.yaml", "testdata/finish-confirm.yaml", "testdata/silence-checkin.yaml"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			// The testdata scripts pin their clock (start:); the example does not, so the
			// test pins it.
			s := loadScript(t, name)
			opts := headless.Options{}
			if s.StartAt().IsZero() {
				opts.Start = headless.DefaultStart
			}
			r := runScript(t, s, opts)
			var b bytes.Buffer
			for _, ev := range r.Log {
				if ev.Event == runtime.EventObservation {
					var p runtime.ObservationPayload
					if err := json.Unmarshal(ev.Payload, &p); err != nil {
						t.Fatal(err)
					}
					p.Latency = runtime.Latency{}
					raw, err := json.Marshal(&p)
					if err != nil {
						t.Fatal(err)
					}
					ev.Payload = raw
				}
				line, err := json.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(line)
				b.WriteByte('\n')
			}
			testutil.Golden(t, filepath.Join("testdata", "golden", filepath.Base(name)+".events.jsonl"), b.Bytes())
		})
	}
}
