package headless_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGoldenEventStreams pins the full event stream of scripted runs: every envelope, in seq
// order, with the measured latencies zeroed (they are the only wall-clock values).
func TestGoldenEventStreams(t *testing.T) {
	for _, name := range []string{"../../examples/hotel-rehearsal.yaml", "testdata/admin.yaml", "testdata/finish-confirm.yaml", "testdata/silence-checkin.yaml"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			// The testdata scripts pin their clock (start:); the example does not, so the
			// test pins it.
			s, err := headless.LoadScript(name)
			if err != nil {
				t.Fatal(err)
			}
			opts := headless.Options{}
			if s.StartAt().IsZero() {
				opts.Start = headless.DefaultStart
			}
			r, err := headless.Run(context.Background(), s, opts)
			if err != nil {
				t.Fatal(err)
			}
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
			golden := filepath.Join("testdata", "golden", filepath.Base(name)+".events.jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(want, b.Bytes()) {
				gl, wl := bytes.Split(b.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := range min(len(gl), len(wl)) {
					if !bytes.Equal(gl[i], wl[i]) {
						t.Fatalf("%s differs at line %d:\n got %s\nwant %s", golden, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("%s differs in length: got %d lines, want %d", golden, len(gl), len(wl))
			}
		})
	}
}
