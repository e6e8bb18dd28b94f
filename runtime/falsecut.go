package runtime

import "strings"

// A barge-in cuts the examiner's line as soon as the candidate's voice is loud and long enough;
// what the candidate said is known only when it is recognised. When it turns out to be only a
// backchannel ("mm-hmm", "yeah", "okay": the vocabulary's Backchannels) or nothing at all (a
// cough, a laugh), the cut was false: the controller says the line again from the sentence it
// was cut in, instead of treating the sound as the candidate's turn. A real interruption ("sorry,
// can you repeat that?", "wait", a sentence) is a turn as before. Live and in the replay of a
// stored log the same functions keep the line being said (noteSaying) and the rest to resume
// (noteCut), so a resumed controller decides the same way.

// noteSaying records a spoken part as the examiner's line being said: part 0 starts a new line.
// Caller holds mu.
func (c *Controller) noteSaying(text string, part int) {
	if part == 0 {
		c.saying = c.saying[:0:0]
	}
	c.saying = append(c.saying, text)
}

// noteCut records a barge-in after heard (what the candidate heard of the line being said): the
// rest of the line from the sentence the cut fell in, to say again if the cut was false.
// Caller holds mu.
func (c *Controller) noteCut(heard string) {
	c.cut = restFromCut(strings.Join(c.saying, " "), heard)
}

// restFromCut is line from the sentence in which a cut after heard fell: "" when the whole line
// was heard; the whole line when heard is not its start.
func restFromCut(line, heard string) string {
	sentences := SplitSentences(line)
	hw := strings.Fields(normalizeWords(heard))
	lw := strings.Fields(normalizeWords(line))
	if len(hw) > len(lw) || !equalStrings(hw, lw[:len(hw)]) {
		return strings.Join(sentences, " ")
	}
	words := 0
	for i, s := range sentences {
		words += len(strings.Fields(normalizeWords(s)))
		if words > len(hw) {
			return strings.Join(sentences[i:], " ")
		}
	}
	return ""
}

// falseCut returns the rest of the line to say again when the candidate's words (text) after a
// cut are only a backchannel or nothing; "" otherwise. Caller holds mu.
func (c *Controller) falseCut(text string) string {
	if c.cut == "" || c.state != StateInProgress || c.pendingFinish {
		return ""
	}
	if strings.TrimSpace(text) != "" && !c.vocab.onlyBackchannel(text) {
		return ""
	}
	return c.cut
}

// turnHeard forgets the line being said and its cut: the candidate has taken a turn. Caller
// holds mu.
func (c *Controller) turnHeard() {
	c.saying, c.cut = nil, ""
}

// onlyBackchannel reports whether text is made only of the vocabulary's backchannels (and its
// fillers): "Mm-hmm, yeah." is; "Yeah, we could open a second line." is not.
func (v *Vocabulary) onlyBackchannel(text string) bool {
	norm := normalizeWords(text)
	for _, b := range v.Backchannels {
		if p := normPhrase(b); p != "" {
			norm = strings.ReplaceAll(norm, " "+p+" ", " ")
		}
	}
	for _, w := range strings.Fields(norm) {
		if !v.has(v.Fillers, w) {
			return false
		}
	}
	return true
}

// OnlyBackchannel reports whether text is made only of the vocabulary's backchannels and
// fillers ("Mm-hmm, yeah."): a voice path reads it to tell a listener's sound over the
// examiner's line from an interruption, by the same words the controller's false-cut rule uses.
func (v *Vocabulary) OnlyBackchannel(text string) bool { return v.onlyBackchannel(text) }
