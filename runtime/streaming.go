package runtime

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/examtui/examtui/spec"
)

// streamState follows one streaming examiner call. It is touched only under the controller's mu.
type streamState struct {
	gen         int
	safety      Command
	wallStart   time.Time
	done        bool // the call returned: late callbacks are ignored
	decided     bool // decision fields parsed
	speakable   bool // the predicted decision speaks the examiner's text
	stopped     bool // a sentence failed validation: wait for the whole reply
	emitted     []string
	chars       int
	firstSpoken time.Duration
}

func (st *streamState) nodeID(c *Controller) string {
	if c.node == nil {
		return ""
	}
	return c.node.NodeID
}

// decisionFields are the required fields that precede spokenText in the schema.
var decisionFields = []string{"signals", "answerQuality", "needsFollowUp", "evidenceSufficient", "anxietyDetected"}

// onPartialArguments is ExaminerRequest.OnArguments: once the decision fields are complete it
// predicts the decision, and if the examiner's text will be spoken it hands on each validated
// sentence of spokenText before the call completes.
func (c *Controller) onPartialArguments(st *streamState, partial []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.done || st.stopped || c.nodeGen != st.gen || c.state != StateInProgress || c.sinkErr != nil || c.closed {
		return
	}
	fields, spoken, inSpoken, closed := scanPartialObject(partial)
	if !inSpoken {
		return
	}
	if !st.decided {
		for _, f := range decisionFields {
			if _, ok := fields[f]; !ok {
				// spokenText came before the decision: wait for the whole reply.
				st.stopped = true
				return
			}
		}
		st.decided = true
		st.speakable = c.predictSpeaks(st, fields)
		if !st.speakable {
			st.stopped = true
			return
		}
	}
	nf := c.filtersFor(c.node.NodeID)
	sentences := completeSentences(spoken)
	if closed { // the closing quote makes every sentence final
		sentences = SplitSentences(spoken)
	}
	if len(sentences) < len(st.emitted) {
		return
	}
	// What is said so far passes the filters whole (a phrase can span sentences), and is said
	// only once the topic is settled, so that the whole reply validates to the same start and the
	// streamed path says what the whole-reply path would. Sentences wait until then (or until
	// the whole spokenText has arrived, which the filters then judged whole).
	for k := len(st.emitted) + 1; k <= len(sentences); k++ {
		said := strings.Join(sentences[:k], " ")
		out, _, hits := c.outputFilters(nf, said)
		if len(hits) > 0 || out != said || utf8.RuneCountInString(said) > nf.maxChars {
			st.stopped = true
			return
		}
		if whole := closed && k == len(sentences); !whole && !nf.topicSettled(normalizeWords(said)) {
			continue
		}
		for _, s := range sentences[len(st.emitted):k] {
			if len(st.emitted) == 0 {
				st.firstSpoken = time.Since(st.wallStart)
			}
			c.speakPart(s, SpokenExaminer, false, len(st.emitted), true)
			st.emitted = append(st.emitted, s)
			st.chars += utf8.RuneCountInString(s) + 1
		}
	}
}

// predictSpeaks decides, from the complete decision fields, whether the reply's spokenText will
// be said: no command, no anxiety replacement, and no guardrail transition.
func (c *Controller) predictSpeaks(st *streamState, fields map[string]json.RawMessage) bool {
	speaks, _ := c.predictReply(st.safety, fields)
	return speaks
}

// predictReply predicts from the decision fields what the decision does with the reply: speaks
// its spokenText (no command, no anxiety replacement, no guardrail transition), or moves on for
// reason (non-empty: a guardrail transition); neither when it does something else.
func (c *Controller) predictReply(safety Command, fields map[string]json.RawMessage) (speaks bool, reason spec.Reason) {
	fields["spokenText"] = json.RawMessage(`""`)
	raw, err := json.Marshal(fields)
	if err != nil {
		return false, ""
	}
	obs, _, err := ParseObservation(raw, c.node, c.exam)
	if err != nil || obs.AnxietyDetected || obs.DistressDetected {
		return false, ""
	}
	if cmd, _, _ := arbitrateCommand(true, obs, safety); cmd != "" {
		return false, ""
	}
	// Simulate step 4: which of the signals would be newly accepted.
	node := c.node
	have := len(c.ledger.Covered(node.NodeID, node.Controller.EvidenceSignals))
	seen := map[string]bool{}
	for _, s := range obs.Signals {
		if seen[s.SignalType] || c.ledger.Has(node.NodeID, s.SignalType) || !slices.Contains(node.Controller.EvidenceSignals, s.SignalType) {
			continue
		}
		seen[s.SignalType] = true
		cur := segment{confidence: 1}
		if n := len(c.segments); n > 0 {
			cur = c.segments[n-1]
		}
		if _, ok := c.sttGate(s.Excerpt, cur); ok {
			have++
		}
	}
	offTopic := c.offTopic
	if obs.AnswerQuality == QualityOffTopic {
		offTopic++
	}
	reason, _ = c.checkGuardrails(obs, offTopic, have)
	return reason == "", reason
}

// scanPartialObject reads a possibly truncated JSON object. It returns the top-level fields
// whose values are complete, and, when the scan has reached the spokenText value, its decoded
// content so far.
func scanPartialObject(b []byte) (fields map[string]json.RawMessage, spoken string, inSpoken, closed bool) {
	fields = map[string]json.RawMessage{}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fields, "", false, false
	}
	i++
	for {
		i = skipWS(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipWS(b, i+1)
		}
		if i >= len(b) || b[i] == '}' {
			return fields, spoken, inSpoken, closed
		}
		if b[i] != '"' {
			return fields, spoken, inSpoken, closed
		}
		end, ok := scanString(b, i)
		if !ok {
			return fields, spoken, inSpoken, closed
		}
		key, err := strconv.Unquote(string(b[i:end]))
		if err != nil {
			return fields, spoken, inSpoken, closed
		}
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return fields, spoken, inSpoken, closed
		}
		i = skipWS(b, i+1)
		if i >= len(b) {
			return fields, spoken, inSpoken, closed
		}
		if key == "spokenText" && b[i] == '"' {
			inSpoken = true
			spoken, closed = decodePartialString(b[i+1:])
			if !closed {
				return fields, spoken, inSpoken, closed
			}
		}
		vend, ok := scanValue(b, i)
		if !ok {
			return fields, spoken, inSpoken, closed
		}
		fields[key] = json.RawMessage(bytes.Clone(b[i:vend]))
		i = vend
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString returns the index after the closing quote of the string starting at b[i].
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// containerEnd returns the index after the object or array starting at b[i]: its brackets
// balanced, strings passed over. False when b ends first. It does not validate what it passes.
func containerEnd(b []byte, i int) (int, bool) {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, ok := scanString(b, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// scanValue returns the index after the complete JSON value starting at b[i].
func scanValue(b []byte, i int) (int, bool) {
	switch b[i] {
	case '"':
		end, ok := scanString(b, i)
		if !ok || !json.Valid(b[i:end]) {
			return 0, false
		}
		return end, true
	case '{', '[':
		end, ok := containerEnd(b, i)
		if !ok || !json.Valid(b[i:end]) {
			return 0, false
		}
		return end, true
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		if j == len(b) || !json.Valid(b[i:j]) {
			return 0, false // a number or literal may still be growing
		}
		return j, true
	}
}

// decodePartialString decodes a JSON string body that may be cut off; an escape cut in the
// middle is left out. closed reports whether the closing quote was reached.
func decodePartialString(b []byte) (string, bool) {
	var out []rune
	for i := 0; i < len(b); {
		ch := b[i]
		switch {
		case ch == '"':
			return string(out), true
		case ch == '\\':
			if i+1 >= len(b) {
				return string(out), false
			}
			switch b[i+1] {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'r':
				out = append(out, '\r')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'u':
				if i+6 > len(b) {
					return string(out), false
				}
				v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 32)
				if err != nil {
					return string(out), false
				}
				r := rune(v)
				if utf16.IsSurrogate(r) {
					if i+12 > len(b) {
						return string(out), false
					}
					if b[i+6] == '\\' && b[i+7] == 'u' {
						v2, err := strconv.ParseUint(string(b[i+8:i+12]), 16, 32)
						if err == nil {
							out = append(out, utf16.DecodeRune(r, rune(v2)))
							i += 12
							continue
						}
					}
					out = append(out, utf8.RuneError)
					i += 6
					continue
				}
				out = append(out, r)
				i += 6
				continue
			default:
				out = append(out, rune(b[i+1]))
			}
			i += 2
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 && !utf8.FullRune(b[i:]) {
				return string(out), false
			}
			out = append(out, r)
			i += size
		}
	}
	return string(out), false
}
