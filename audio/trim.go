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
	win := int(int64(c.Rate) * int64(leadWindow) / int64(time.Second))
	if win <= 0 {
		return c
	}
	for i := 0; i < len(c.Samples); i += win {
		if LevelDB(c.Samples[i:min(i+win, len(c.Samples))]) > leadQuietDBFS {
			from := max(0, i-int(int64(c.Rate)*int64(leadKeep)/int64(time.Second)))
			return Clip{Samples: c.Samples[from:], Rate: c.Rate}
		}
	}
	return c
}
