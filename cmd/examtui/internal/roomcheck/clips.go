package roomcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/examtui/examtui/audio"
)

// writeClip writes one side's part of a step as its own WAV in the clip folder
// (step-03-candidate.wav, opening-examiner.wav) and returns its path; empty when there is no
// audio or it could not be written (logged: a clip is a debugging aid, not the run).
func (p *player) writeClip(req measureReq, who string, pcm []int16, rate int) string {
	if len(pcm) == 0 || p.clipDir == "" {
		return ""
	}
	name := fmt.Sprintf("step-%02d-%s.wav", req.step, who)
	if req.kind == "opening" {
		name = "opening-" + who + ".wav"
	}
	path := filepath.Join(p.clipDir, name)
	err := os.MkdirAll(p.clipDir, 0o700)
	if err == nil {
		err = audio.WriteWAVFile(path, audio.Clip{Samples: pcm, Rate: rate})
	}
	if err != nil {
		p.o.logger().Warn("reply clip not written", "path", path, "err", err)
		return ""
	}
	return path
}

// samplesAt is the 16 kHz sample index at offset d.
func samplesAt(d time.Duration) int { return int(d * audio.SampleRate / time.Second) }
