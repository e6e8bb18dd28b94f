package runtime

import "github.com/examtui/examtui/spec/lang"

// The English pack's canned lines, as the filter tests of English exams expect them.
var (
	neutralFollowUp = lang.English().Line(lang.LineNeutralFollowUp)
	calmSupportText = lang.English().Line(lang.LineSilencePrompt)
)

// neutralizeReassurance is the English filters' (langVocabFor(nil)).
func neutralizeReassurance(text string) (string, string, bool) {
	return langVocabFor(nil).neutralizeReassurance(text)
}

// forbiddenMatchEN is forbiddenMatch with the English verdict and praise words and the English
// verdict detector.
func forbiddenMatchEN(norm string) filterWhy {
	return langVocabFor(nil).forbiddenMatch(norm, norm, defaultVocabulary.verdictIndex())
}
