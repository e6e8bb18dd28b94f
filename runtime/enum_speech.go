package runtime

// Speaker says who a transcript_segment is from.
type Speaker string

// Speakers.
const (
	SpeakerUnknown   Speaker = ""
	SpeakerCandidate Speaker = "candidate"
	SpeakerExaminer  Speaker = "examiner"
)

// Speakers lists every speaker.
var Speakers = []Speaker{SpeakerCandidate, SpeakerExaminer}

func (s Speaker) String() string { return string(s) }

// Valid reports whether s is a known speaker.
func (s Speaker) Valid() bool { return isKnown(s, Speakers) }

// ParseSpeaker parses "candidate" or "examiner".
func ParseSpeaker(s string) (Speaker, error) { return parseEnum("speaker", s, Speakers) }

// SpokenSource says why a spoken event's line was said.
type SpokenSource string

// Spoken sources.
const (
	SpokenUnknown  SpokenSource = ""
	SpokenIntro    SpokenSource = "intro"    // a node's scenario introduction
	SpokenPrompt   SpokenSource = "prompt"   // a node's conversation prompt (its question)
	SpokenExaminer SpokenSource = "examiner" // the examiner's reply to a turn
	SpokenFallback SpokenSource = "fallback" // the canned line after an unusable examiner reply
	SpokenCommand  SpokenSource = "command"  // the answer to a candidate command or an examiner control
	SpokenAdmin    SpokenSource = "admin"    // the examiner bot's reply to an immediate admin instruction
	SpokenSilence  SpokenSource = "silence"  // a silence check-in or the repeated question
	SpokenResume   SpokenSource = "resume"   // re-asking the question after a resume
	SpokenNotice   SpokenSource = "notice"   // a line outside the exam's flow (Controller.Notice)
	SpokenSystem   SpokenSource = "system"   // the examiner-failure interruption line
	SpokenHolding  SpokenSource = "holding"  // the holding line while a failing examiner is retried
	SpokenSay      SpokenSource = "say"      // the supervising examiner's own words (admin mode say)
)

// SpokenSources lists every spoken source.
var SpokenSources = []SpokenSource{SpokenIntro, SpokenPrompt, SpokenExaminer, SpokenFallback, SpokenCommand,
	SpokenAdmin, SpokenSilence, SpokenResume, SpokenNotice, SpokenSystem, SpokenHolding, SpokenSay}

func (s SpokenSource) String() string { return string(s) }

// Valid reports whether s is a known spoken source.
func (s SpokenSource) Valid() bool { return isKnown(s, SpokenSources) }

// ParseSpokenSource parses a spoken event's source.
func ParseSpokenSource(s string) (SpokenSource, error) {
	return parseEnum("spoken source", s, SpokenSources)
}
