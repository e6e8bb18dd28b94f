package runtime

import "strings"

// The forms of an examiner's instruction that are addressed to the candidate. An instruction
// in one of these forms carries a line meant for the candidate; any other instruction is
// guidance for the examiner and is never read out (only admin mode say speaks the examiner's
// own words). The offline examiner says these lines, and the instruction echo guard lets
// through what they carry: one grammar for both.
var (
	// "Ask the candidate to speak up." → "Could you speak up, please?"
	askToPrefixes = []string{"please ask the candidate to ", "ask the candidate to ", "please ask them to ", "ask them to "}
	// "Ask about weekend cover." → "Could you tell me about weekend cover?"
	askAboutPrefixes = []string{"please ask the candidate about ", "ask the candidate about ", "ask them about ", "ask about "}
	// "Ask how the plan fits the budget." → "Could you tell me how the plan fits the budget?"
	askWhPrefixes = []string{"please ask the candidate ", "ask the candidate ", "please ask them ", "ask them ", "ask "}
	questionWords = []string{"how ", "why ", "what ", "whether ", "if ", "when ", "where ", "which ", "who "}
	// "Tell the candidate that we have five minutes left." → "We have five minutes left."
	tellPrefixes = []string{"tell the candidate that ", "tell the candidate ", "tell them that ", "tell them "}
)

// directive is an instruction addressed to the candidate: the line to say for it, and the part
// of the instruction's text that is meant for the candidate (what follows the form's words).
type directive struct {
	line    string
	payload string
}

// parseDirective reads text as an instruction addressed to the candidate.
func parseDirective(text string) (directive, bool) {
	text = strings.TrimSpace(text)
	lower := strings.ToLower(text)
	rest := func(p string) string { return strings.TrimSpace(text[len(p):]) }
	for _, p := range askToPrefixes {
		if strings.HasPrefix(lower, p) {
			if r := strings.TrimRight(rest(p), ".!? "); r != "" {
				return directive{line: "Could you " + r + ", please?", payload: r}, true
			}
		}
	}
	for _, p := range askAboutPrefixes {
		if strings.HasPrefix(lower, p) {
			if r := strings.TrimRight(rest(p), ".!? "); r != "" {
				return directive{line: "Could you tell me about " + r + "?", payload: r}, true
			}
		}
	}
	for _, p := range askWhPrefixes {
		if !strings.HasPrefix(lower, p) {
			continue
		}
		for _, w := range questionWords {
			if strings.HasPrefix(lower[len(p):], w) {
				if r := strings.TrimRight(rest(p), ".!? "); len(r) > len(w) {
					return directive{line: "Could you tell me " + lowerFirst(r) + "?", payload: r}, true
				}
			}
		}
	}
	for _, p := range tellPrefixes {
		if strings.HasPrefix(lower, p) {
			if r := rest(p); strings.Trim(r, ".!? ") != "" {
				line := upperFirst(r)
				if !strings.ContainsAny(line[len(line)-1:], ".!?") {
					line += "."
				}
				return directive{line: line, payload: r}, true
			}
		}
	}
	return directive{}, false
}

// CandidateLine is the line to say for an instruction addressed to the candidate ("ask the
// candidate to …", "ask about …", "ask how/why/what/whether … ", "tell the candidate …"), and false for any other
// instruction, which is guidance and must not be spoken.
func CandidateLine(instruction string) (string, bool) {
	d, ok := parseDirective(instruction)
	return d.line, ok
}
