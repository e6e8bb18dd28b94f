package apptest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/examtui/examtui/audio"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/transport/livekit"
)

// PersonaVoice is an espeak-ng voice well below the default one in pitch, for tests that tell
// the examiner's voices apart.
const PersonaVoice = "en+m7"

// NeedSox skips the test when sox is not installed.
func NeedSox(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("sox"); err != nil {
		t.Skip("sox is not installed")
	}
}

// DemoWithVoice writes the demo exam to dir/name.yaml with its opening persona's voice set to
// voice ("": the demo as it is) and returns the file.
func DemoWithVoice(t testing.TB, dir, name, voice string) string {
	t.Helper()
	src := string(examples.Demo())
	if voice != "" {
		const persona = "persona:\n  id: examiner\n"
		if !strings.Contains(src, persona) {
			t.Fatal("the demo exam's persona is not where the test expects it")
		}
		src = strings.Replace(src, persona, persona+"  voice: "+voice+"\n", 1)
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// RecordSpeech records d of the examiner's speech as c hears it, from the first voiced frame,
// into a WAV file at path.
func RecordSpeech(ctx context.Context, t testing.TB, c *livekit.Client, d time.Duration, path string) {
	t.Helper()
	var samples []int16
	rate := 0
	for rate == 0 || len(samples) < int(int64(rate)*int64(d)/int64(time.Second)) {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %d samples of the examiner heard", filepath.Base(path), len(samples))
		case f := <-c.Audio():
			if len(samples) == 0 && audio.RMS(f.Samples) < 500 {
				continue // silence before the examiner speaks
			}
			rate = f.SampleRate
			samples = append(samples, f.Samples...)
		}
	}
	if err := audio.WriteWAVFile(path, audio.Clip{Samples: samples, Rate: rate}); err != nil {
		t.Fatal(err)
	}
}

// LowerVoice fails the test unless the persona's voice measured below 0.85 of the default's
// frequency (sox's rough frequency, Hz): the persona's voice was used.
func LowerVoice(t testing.TB, what string, def, persona int) {
	t.Helper()
	t.Logf("sox rough frequency of %s: default voice %d Hz, persona voice %q %d Hz", what, def, PersonaVoice, persona)
	if float64(persona) > 0.85*float64(def) {
		t.Fatalf("%s in the persona's voice measures %d Hz, the default %d Hz: the persona's voice was not used", what, persona, def)
	}
}

var roughFrequency = regexp.MustCompile(`Rough\s+frequency:\s+(\d+)`)

// SoxFrequency is sox's rough frequency of the WAV file (`sox FILE -n stat`); the whole output
// goes to the test log.
func SoxFrequency(t testing.TB, path string) int {
	t.Helper()
	out, err := exec.Command("sox", path, "-n", "stat").CombinedOutput()
	if err != nil {
		t.Fatalf("sox %s: %v\n%s", path, err, out)
	}
	m := roughFrequency.FindSubmatch(out)
	if m == nil {
		t.Fatalf("sox %s: no rough frequency in\n%s", path, out)
	}
	hz, _ := strconv.Atoi(string(m[1]))
	t.Logf("sox %s -n stat:\n%s", filepath.Base(path), out)
	return hz
}
