package audio

import "time"

const (
	// leadQuietDBFS is the level under which a line's opening is quiet: far below any speech
	// sound, a breath's onset included (espeak-ng's weakest, the "th" of "thank", is −44).
	leadQuietDBFS = -60
	// leadWindow is the length the level is taken over.
	leadWindow = time.Millisecond
	// leadKeep is the quiet kept before the first sound, so its onset is never clipped.
	leadKeep = 2 * time.Millisecond
)

// TrimLeadingQuiet drops the quiet a clip opens with but the last leadKeep of it: a
// synthesiser's lead-in (espeak-ng's is 10 ms; other voices' are longer), which before the
// first sentence of a reply is only time the candidate waits. A clip quiet throughout is
// returned as it is.
func (c Clip) TrimLeadingQuiet() Clip {
	i := c.firstSound()
	if i < 0 {
		return c
	}
	from := max(0, i-int(int64(c.Rate)*int64(leadKeep)/int64(time.Second)))
	return Clip{Samples: c.Samples[from:], Rate: c.Rate}
}

// firstSound is where the clip's first whole window above leadQuietDBFS starts, or -1. Whole
// windows only, so a stream's audio read as it arrives is judged as the clip would be.
func (c Clip) firstSound() int {
	win := int(int64(c.Rate) * int64(leadWindow) / int64(time.Second))
	if win <= 0 {
		return -1
	}
	for i := 0; i+win <= len(c.Samples); i += win {
		if LevelDB(c.Samples[i:i+win]) > leadQuietDBFS {
			return i
		}
	}
	return -1
}
