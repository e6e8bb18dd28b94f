package audio

import (
	"encoding/binary"
	"os"
	"testing"
)

// TestRecorderFilesSurviveAKill: a process killed before Close (SIGKILL, a power cut) leaves
// tracks whose header counts what was written up to the last second, so sox and players read
// them. (Before, the header said the data was empty until Close, and up to 64 KiB sat in the
// process's buffer.)
func TestRecorderFilesSurviveAKill(t *testing.T) {
	dir := t.TempDir()
	r, err := NewSessionRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	frame := make([]int16, SampleRate/50) // 20 ms
	for i := range frame {
		frame[i] = int16(1000 * (i%32 - 16))
	}
	const frames = 50*3 + 25 // 3.5 s
	for i := range frames {
		if err := r.WriteAt(TrackCandidate, int64(i*len(frame)), frame); err != nil {
			t.Fatal(err)
		}
	}
	// No Close: read the file as a killed process left it.
	b, err := os.ReadFile(r.Path(TrackCandidate))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 44 {
		t.Fatalf("%d bytes, not even a header", len(b))
	}
	riff, data := binary.LittleEndian.Uint32(b[4:8]), int(binary.LittleEndian.Uint32(b[40:44]))
	if data < 3*SampleRate*2 || len(b) < 44+data || int(riff) != 36+data {
		t.Fatalf("after 3.5 s written and no close: header counts %d data bytes (RIFF %d), file has %d; want at least 3 s counted and on disk", data, riff, len(b)-44)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := ReadWAVFile(r.Path(TrackCandidate))
	if err != nil || len(c.Samples) != frames*len(frame) {
		t.Fatalf("closed: %d samples, %v; want %d", len(c.Samples), err, frames*len(frame))
	}
}
