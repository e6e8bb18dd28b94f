package runtime

// InputSource is where a candidate's answers come from: the input mode of a session (stored
// with it, shown in the console's status line) and the source of each candidate
// transcript_segment.
type InputSource string

// Input sources.
const (
	SourceUnknown InputSource = ""
	SourceTyped   InputSource = "typed" // typed in the console, the headless driver or a room's data channel
	SourceMic     InputSource = "mic"   // spoken into the local microphone
	SourceRoom    InputSource = "room"  // spoken in a LiveKit room
)

// InputSources lists every input source.
var InputSources = []InputSource{SourceTyped, SourceMic, SourceRoom}

func (s InputSource) String() string { return string(s) }

// Valid reports whether s is a known input source.
func (s InputSource) Valid() bool { return isKnown(s, InputSources) }

// ParseInputSource parses "typed", "mic" or "room".
func ParseInputSource(s string) (InputSource, error) {
	return parseEnum("input source", s, InputSources)
}
