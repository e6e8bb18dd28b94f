package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/examtui/examtui/internal/testutil"
)

// TestAudioVADCommand runs `examtui audio vad --json` on real espeak-ng speech: two sentences
// 1.5 s apart, resampled from 22.05 kHz by the command itself.
func TestAudioVADCommand(t *testing.T) {
	testutil.SkipIfShort(t, "espeak-ng")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav")
	for _, c := range [][]string{
		{"espeak-ng", "-v", "en-us", "-w", a, "Is breakfast included in the price?"},
		{"espeak-ng", "-v", "en-us", "-w", b, "Thank you very much."},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", c, err, out)
		}
	}
	// one second of lead-in, the question, 1.5 s of silence, the thanks, one second of tail
	gap := filepath.Join(dir, "gap.wav")
	if out, err := exec.Command("sox", a, gap, "pad", "1", "1.5").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	joined := filepath.Join(dir, "joined.wav")
	if out, err := exec.Command("sox", gap, b, joined, "pad", "0", "1").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"vad", "--json", joined}, 2},
		{[]string{"vad", "--json", "--min-delay", "2s", joined}, 1},
	}
	for _, tc := range cases {
		cmd := newAudioCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs(tc.args)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		var utts []struct{ StartMs, EndMs int64 }
		if err := json.Unmarshal(out.Bytes(), &utts); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out.String())
		}
		if len(utts) != tc.want || utts[0].StartMs < 900 || utts[0].StartMs > 1200 {
			t.Errorf("%v: %s", tc.args, out.String())
		}
	}
	cmd := newAudioCmd()
	cmd.SetArgs([]string{"vad", filepath.Join(dir, "missing.wav")})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil {
		t.Error("missing file accepted")
	}
}

func TestDevicesCommandJSON(t *testing.T) {
	testutil.SkipIfShort(t, "PortAudio")
	abs, err := filepath.Abs("../../testdata/asound-null.conf")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", abs)
	cmd := newDevicesCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs([]string{"--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var devs []struct {
		Name         string
		DefaultInput bool
	}
	if err := json.Unmarshal(out.Bytes(), &devs); err != nil || len(devs) == 0 || !devs[0].DefaultInput {
		t.Fatalf("devices %s (%v)", out.String(), err)
	}
}
