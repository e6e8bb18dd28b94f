// Package lang holds examtui's language packs: every word the runtime says or listens for in
// one language (candidate-command phrases, end-of-turn word classes, backchannels, the output
// filters' vocabularies, the fixed lines, the candidate page's strings, the default espeak-ng
// voice). The packs of the shipped languages are data files embedded in the binary
// (packs/*.json, format in docs/languages.md, JSON Schema in schema.json); a config file can
// add a language or override lines. The package imports nothing of examtui's, so spec and
// runtime both use it.
package lang

import (
	"fmt"
	"slices"
	"strings"
)

// Direction is the writing direction of a language's script.
type Direction string

// Directions.
const (
	DirectionUnknown Direction = ""
	LTR              Direction = "ltr"
	RTL              Direction = "rtl"
)

func (d Direction) String() string { return string(d) }

// Valid reports whether d is ltr or rtl.
func (d Direction) Valid() bool { return d == LTR || d == RTL }

// Command names, as the runtime's candidate commands travel (runtime.Command's values).
const (
	CmdRepeat              = "repeat"
	CmdClarification       = "clarification"
	CmdRequestRephrase     = "request_rephrase"
	CmdSlowDown            = "slow_down"
	CmdPause               = "pause"
	CmdThinkingAloud       = "thinking_aloud"
	CmdHelp                = "help"
	CmdSkip                = "skip"
	CmdReviseEarlierAnswer = "revise_earlier_answer"
	CmdFinish              = "finish"
)

// CommandOrder is the order command phrases are tried in: the more specific phrasings first
// (a rephrase request often contains "say", a slow-down request "again").
var CommandOrder = []string{CmdSlowDown, CmdRequestRephrase, CmdRepeat, CmdClarification, CmdFinish, CmdSkip,
	CmdPause, CmdReviseEarlierAnswer, CmdThinkingAloud, CmdHelp}

// Pack is one language's words. Every field is required in a shipped pack; a pack given in
// the config file is laid over its base language's pack (Overlay), so it names only what it
// changes.
type Pack struct {
	// Schema is the editor's "$schema" reference; it means nothing to examtui.
	Schema string `json:"$schema,omitempty"`
	// Language is the pack's BCP-47 tag, a base language ("fr") or a regional one ("fr-CA").
	Language string `json:"language"`
	// Name is the language's name in itself ("Français"), for people.
	Name string `json:"name"`
	// Direction is the script's writing direction: "ltr" or "rtl".
	Direction Direction `json:"direction"`
	// Voice is the default espeak-ng voice ("fr-fr").
	Voice string `json:"voice"`
	// Commands are the candidate-command phrases, per command name (CommandOrder).
	Commands map[string][]string `json:"commands"`
	// Politeness are the words that may surround a command without making it an answer
	// ("s'il vous plaît", "pouvez", "vous").
	Politeness []string `json:"politeness"`
	// Affirmatives confirm a pending finish; Negatives cancel it (checked first).
	Affirmatives []string `json:"affirmatives"`
	Negatives    []string `json:"negatives"`
	// TurnEnd are the end-of-turn word classes.
	TurnEnd TurnEnd `json:"turnEnd"`
	// Backchannels are the short sounds and words a listener makes without taking the turn.
	Backchannels []string `json:"backchannels"`
	// Vocabulary is what the output filters look for in the examiner's lines.
	Vocabulary Vocabulary `json:"vocabulary"`
	// VerdictWords are the word classes of the structural verdict detector.
	VerdictWords VerdictWords `json:"verdictWords"`
	// Questions are what tells an examiner's sentence is a question.
	Questions Questions `json:"questions"`
	// Return are the words of an utterance that only brings the candidate back from a pause.
	Return Return `json:"return"`
	// LeadingRewrite is how a leading question is reworded into a neutral one.
	LeadingRewrite LeadingRewrite `json:"leadingRewrite"`
	// Offline is what the offline (rule-based) examiner listens for.
	Offline Offline `json:"offline"`
	// Lines are the fixed lines the runtime and the offline examiner say, by key (LineKeys).
	Lines map[LineKey]string `json:"lines"`
	// Page are the candidate page's strings, by key (PageKeys).
	Page map[string]string `json:"page"`
	// CommonWords are the language's most frequent short words, by which check tells which
	// language a text is written in.
	CommonWords []string `json:"commonWords"`
}

// TurnEnd are the word classes that say a turn is not over when the words stop on them.
type TurnEnd struct {
	// Trailing are the words that cannot end a sentence: conjunctions, articles, prepositions
	// ("parce que", "et", "le").
	Trailing []string `json:"trailing"`
	// Fillers are the hesitation sounds ("euh", "ähm").
	Fillers []string `json:"fillers"`
}

// Vocabulary is what the output filters look for in an examiner's line, in this language.
type Vocabulary struct {
	// Verdict are the phrases that judge an answer right or wrong ("c'est exact").
	Verdict []string `json:"verdict"`
	// Reveal are the phrases that reveal an answer ("la bonne réponse est").
	Reveal []string `json:"reveal"`
	// Praise are the phrases that reassure by judging ("excellente réponse").
	Praise []string `json:"praise"`
	// Rubric are the words of the marking scheme ("barème", "critères d'évaluation").
	Rubric []string `json:"rubric"`
	// Hint are the phrases that give a hint ("un indice"); HintRefusal refuse one ("je ne
	// peux pas donner d'indice"), so a hint phrase beside one is no hint.
	Hint        []string `json:"hint"`
	HintRefusal []string `json:"hintRefusal"`
	// Leading are the phrases of a leading question ("ne pensez-vous pas").
	Leading []string `json:"leading"`
	// PersonaBreak are the phrases of an examiner speaking as a machine ("en tant qu'IA").
	PersonaBreak []string `json:"personaBreak"`
	// Equity are the phrases about who the candidate is rather than what they said.
	Equity []string `json:"equity"`
	// QuestionWords open a question written without its question mark.
	QuestionWords []string `json:"questionWords"`
	// Stopwords carry no topic; Procedural are the words an examiner uses on any topic
	// ("explain", "example"). Both are optional: a pack's lines, politeness, question words
	// and common words count as procedural too.
	Stopwords  []string `json:"stopwords,omitempty"`
	Procedural []string `json:"procedural,omitempty"`
	// Limits are how the exam's limits are said (optional).
	Limits LimitWords `json:"limits,omitzero"`
}

// LimitWords are how the exam's limits are said ("you have 1 of 2 clarifications left"): a
// limit noun with a count, a word after it or a word before it is the exam's limit.
type LimitWords struct {
	Nouns  []string `json:"nouns,omitempty"`
	After  []string `json:"after,omitempty"`
	Before []string `json:"before,omitempty"`
	Of     []string `json:"of,omitempty"`
	Counts []string `json:"counts,omitempty"`
}

// VerdictWords are the word classes the verdict detector reads a sentence with: who is judged
// (Targets), how a judgement is linked to them (Copulas), the judgement itself, outcomes, scores
// and praise. Every list holds words or phrases as spoken; the runtime normalizes them (lower
// case, accents and Arabic letter forms folded, apostrophes joined: "c'est" → "cest").
type VerdictWords struct {
	// Targets name who or what is judged: the candidate ("you", "vous") or their answer.
	Targets []string `json:"targets"`
	// CopulaFreeTargets are targets a judgement may follow directly: a contraction carrying
	// its copula ("you're", "c'est") or, in a language without a present copula, the target
	// itself ("إجابتكم").
	CopulaFreeTargets []string `json:"copulaFreeTargets"`
	// Copulas link a target to a judgement ("is", "est", "ist", "es").
	Copulas []string `json:"copulas"`
	// Softeners may stand between a copula and its judgement ("not", "quite", "tout à fait").
	Softeners []string `json:"softeners"`
	// Judgements say right, wrong, good or bad of an answer.
	Judgements []string `json:"judgements"`
	// AnswerNouns are what a judgement may qualify after an article ("a strong answer").
	AnswerNouns []string `json:"answerNouns"`
	// Articles make a judgement qualify the noun after it ("a good question" is no verdict).
	Articles []string `json:"articles"`
	// NotAfter are words after a judgement that make it about something else ("good question").
	NotAfter []string `json:"notAfter"`
	// Outcomes are pass and fail and their kin.
	Outcomes []string `json:"outcomes"`
	// OutcomeModifiers make an outcome a verdict noun before it ("a pass", "a clear fail").
	OutcomeModifiers []string `json:"outcomeModifiers"`
	// OutcomeAfter are words that may follow an outcome verb in a verdict ("you passed this").
	OutcomeAfter []string `json:"outcomeAfter"`
	// OutcomeNotBefore are words after an outcome that make it something else ("pass to").
	OutcomeNotBefore []string `json:"outcomeNotBefore"`
	// SectionWords are the parts of an exam that can be passed or failed ("part", "épreuve").
	SectionWords []string `json:"sectionWords"`
	// OutcomeVerbs are what a candidate does to an outcome or a score ("scored", "obtenu").
	OutcomeVerbs []string `json:"outcomeVerbs"`
	// CompletedVerbs judge on their own after a target ("you nailed it").
	CompletedVerbs []string `json:"completedVerbs"`
	// PerformanceVerbs and MannerVerbs take a manner ("you did well", "you got it right");
	// AuxiliaryMannerVerbs take only a StrictManner ("you have it right").
	PerformanceVerbs     []string `json:"performanceVerbs"`
	MannerVerbs          []string `json:"mannerVerbs"`
	AuxiliaryMannerVerbs []string `json:"auxiliaryMannerVerbs"`
	Manners              []string `json:"manners"`
	StrictManners        []string `json:"strictManners"`
	// AwardVerbs are what an examiner does with marks ("I'd give", "je vous donnerais");
	// AwardLinks join an award verb to a judgement ("mark that as correct", "als richtig
	// bewerten": the award verb may come last).
	AwardVerbs []string `json:"awardVerbs"`
	AwardLinks []string `json:"awardLinks"`
	// ScoreNouns are the units of a score ("marks", "points", "note").
	ScoreNouns []string `json:"scoreNouns"`
	// WeakScoreNouns are score nouns that give no score alone ("level").
	WeakScoreNouns []string `json:"weakScoreNouns"`
	// GradeNouns take a grade's value after them ("band 6", "grade A").
	GradeNouns []string `json:"gradeNouns"`
	// AwardNouns are a verdict after any outcome verb ("you earned a distinction").
	AwardNouns []string `json:"awardNouns"`
	// ScoreQualifiers make a score noun a verdict without a number ("full marks").
	ScoreQualifiers []string `json:"scoreQualifiers"`
	// ScoreDeterminers make a score noun a verdict in a question too ("did you get some points").
	ScoreDeterminers []string `json:"scoreDeterminers"`
	// TopicVerbs are verbs of speaking: a score noun in their sentence is what was said
	// ("you raised two points"), not a score.
	TopicVerbs []string `json:"topicVerbs"`
	// Comparisons and Standards: an answer compared with a standard ("above the pass mark").
	Comparisons []string `json:"comparisons"`
	Standards   []string `json:"standards"`
	// Praise are judgements said on their own ("Well done.", "Bravo.").
	Praise []string `json:"praise"`
	// Openers judge when they open a sentence ("Correct, ...", "Exactement.").
	Openers []string `json:"openers"`
	// Interrogatives open a question that asks rather than judges.
	Interrogatives []string `json:"interrogatives"`
	// OutOf are the words of "N out of M" ("out of", "sur", "von", "de", "من").
	OutOf []string `json:"outOf"`
	// Numbers are the number words a score can be given in ("two", "deux").
	Numbers []string `json:"numbers"`
	// VerbReach is how many words after a target an outcome or performance verb may stand
	// (default 3; German's verb bracket puts the participle last: "Sie haben diesen Teil
	// bestanden").
	VerbReach int `json:"verbReach,omitempty"`
}

// Questions are what tells that an examiner's sentence asks something (one question per turn).
type Questions struct {
	// Marks are the question marks of the script ("?", "؟"); OpeningMarks open a question
	// ("¿"): a sentence that starts with one asks rather than judges.
	Marks        []string `json:"marks"`
	OpeningMarks []string `json:"openingMarks,omitempty"`
	// Interrogatives open a question written without its mark ("what", "pourquoi").
	Interrogatives []string `json:"interrogatives"`
	// Auxiliaries open a question when one of Subjects follows ("could you", "pouvez-vous").
	Auxiliaries []string `json:"auxiliaries"`
	Subjects    []string `json:"subjects"`
	// LeadIns may come before a question's first word ("and", "so", "alors").
	LeadIns []string `json:"leadIns"`
}

// Return are the words by which a candidate comes back from a pause they asked for.
type Return struct {
	// Words bring the candidate back ("ready", "prêt", "weiter").
	Words []string `json:"words"`
	// Fillers are courtesy and hesitation words that carry no answer.
	Fillers []string `json:"fillers"`
}

// LeadingRewrite rewords a leading question as a neutral one that keeps its claim.
type LeadingRewrite struct {
	// Template holds {claim}: "What is your view on whether {claim}?". Empty: the node's
	// question is asked instead.
	Template string `json:"template"`
	// ClaimLeads are words cut from the claim's start ("that", "que", "dass"); one ending in
	// an apostrophe is cut from its word ("qu'").
	ClaimLeads []string `json:"claimLeads"`
	// KeepCase keeps the claim's first letter as written (German nouns keep their capital);
	// otherwise it is lowered to stand inside the template.
	KeepCase bool `json:"keepCase,omitempty"`
}

// Offline is what the offline examiner listens for.
type Offline struct {
	// Analysis markers give reasons (lift a signal to the second level).
	Analysis []string `json:"analysis"`
	// Evaluation markers weigh alternatives (the third level).
	Evaluation []string `json:"evaluation"`
	// Distress and Anxiety phrases.
	Distress []string `json:"distress"`
	Anxiety  []string `json:"anxiety"`
}

// LineKey names one fixed line.
type LineKey string

func (k LineKey) String() string { return string(k) }

// The fixed lines. A line ending in a sentence is followed by the question it leads into
// where the runtime adds one.
const (
	LineHelp            LineKey = "help"
	LineClarifyLimit    LineKey = "clarifyLimit"
	LineRephrase        LineKey = "rephrase"
	LineInContext       LineKey = "inContext"
	LineSlowDown        LineKey = "slowDown"
	LinePause           LineKey = "pause"
	LineTakeYourTime    LineKey = "takeYourTime"
	LineCannotSkip      LineKey = "cannotSkip"
	LineRevise          LineKey = "revise"
	LineConfirmFinish   LineKey = "confirmFinish"
	LineFinished        LineKey = "finished"
	LineCarryOn         LineKey = "carryOn"
	LineWelcomeBack     LineKey = "welcomeBack"
	LineResume          LineKey = "resume"
	LineContinue        LineKey = "continue"
	LineHolding         LineKey = "holding"
	LineInterrupt       LineKey = "interrupt"
	LineSayAgain        LineKey = "sayAgain"
	LineAskAgain        LineKey = "askAgain"
	LineThankYou        LineKey = "thankYou"
	LineThankYouClear   LineKey = "thankYouClear"
	LineTellMeMore      LineKey = "tellMeMore"
	LineNeutralFollowUp LineKey = "neutralFollowUp"
	LineNeutralQuestion LineKey = "neutralQuestion"
	LineSilencePrompt   LineKey = "silencePrompt"
	LineRepeatQuestion  LineKey = "repeatQuestion"
	LineApproach        LineKey = "approach"
	LineApproachMore    LineKey = "approachMore"
	LineComeBack        LineKey = "comeBack"
	LineLastQuestion    LineKey = "lastQuestion"
	LineTopicRedirect   LineKey = "topicRedirect"
)

// LineKeys lists every fixed line a pack must have.
var LineKeys = []LineKey{LineHelp, LineClarifyLimit, LineRephrase, LineInContext, LineSlowDown, LinePause,
	LineTakeYourTime, LineCannotSkip, LineRevise, LineConfirmFinish, LineFinished, LineCarryOn, LineWelcomeBack,
	LineResume, LineContinue, LineHolding, LineInterrupt, LineSayAgain, LineAskAgain, LineThankYou, LineThankYouClear,
	LineTellMeMore, LineNeutralFollowUp, LineNeutralQuestion, LineSilencePrompt, LineRepeatQuestion, LineApproach,
	LineApproachMore, LineComeBack, LineLastQuestion, LineTopicRedirect}

// PageKeys lists every candidate-page string a pack must have. A string may hold {name}
// placeholders the page fills in (progress: {current} and {total}; the time warnings: {minutes};
// serverAnswered: {status}; stillDisconnected: {error}); a pack keeps the placeholders its
// English string has.
var PageKeys = []string{"title", "micTitle", "micHelp", "micLabel", "level", "micStart", "micError", "joinTitle", "joinHelp", "join", "cannotJoin", "joining", "connectFailed", "tryingAgain", "reconnecting", "reconnected", "otherTab", "rejoining", "connected", "question", "timeLeft", "exam", "waiting", "paused", "clockStopped", "captionsTitle", "answerLabel", "send", "rejoin", "endedTitle", "endedText", "stopped", "notConnected", "sending", "sent", "notSent", "needLink",
	"noticeTitle", "noticeText", "noticeAck", "examTitle", "micAllow", "serverAnswered", "refusedUsed", "refusedNotFound", "refusedExpired", "refusedRevoked", "refusedInternal", "cannotRejoin", "stillDisconnected", "progress", "progressLabel", "warnQuestion", "warnExam", "stateStarting", "stateInProgress", "statePaused", "stateFinished", "stateStopped", "pausedLeft", "pausedAsked", "pausedByExaminer", "commandTaken", "closePage", "examinerAbsent", "tryAgain"}

// Line is the fixed line of a key. A pack that passed Validate has every line.
func (p *Pack) Line(k LineKey) string { return p.Lines[k] }

// Then is the line of a key followed by the question it leads into (when there is one).
func (p *Pack) Then(k LineKey, question string) string {
	l := p.Line(k)
	if question == "" {
		return l
	}
	if l == "" {
		return question
	}
	return l + " " + question
}

// RTL reports whether the pack's script is written right to left.
func (p *Pack) RTL() bool { return p.Direction == RTL }

// Base is the base language of a BCP-47 tag, lower-cased: "fr-CA" → "fr", "ar_EG" → "ar".
func Base(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	return tag
}

// Validate reports what a complete pack lacks: every command, line and page string, the
// end-of-turn classes, the vocabularies and a voice, direction and common words.
func (p *Pack) Validate() error {
	var missing []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}
	need(p.Language != "", "language")
	need(p.Name != "", "name")
	need(p.Direction.Valid(), "direction (ltr or rtl)")
	need(p.Voice != "", "voice")
	for _, c := range CommandOrder {
		need(len(p.Commands[c]) > 0, "commands."+c)
	}
	for c := range p.Commands {
		if !knownCommand(c) {
			return fmt.Errorf("%w: pack %q: unknown command %q", ErrInvalidPack, p.Language, c)
		}
	}
	need(len(p.Politeness) > 0, "politeness")
	need(len(p.Affirmatives) > 0, "affirmatives")
	need(len(p.Negatives) > 0, "negatives")
	need(len(p.TurnEnd.Trailing) > 0, "turnEnd.trailing")
	need(len(p.TurnEnd.Fillers) > 0, "turnEnd.fillers")
	need(len(p.Backchannels) > 0, "backchannels")
	v := p.Vocabulary
	for _, f := range []struct {
		name string
		l    []string
	}{{"verdict", v.Verdict}, {"reveal", v.Reveal}, {"hintRefusal", v.HintRefusal}, {"praise", v.Praise}, {"rubric", v.Rubric}, {"hint", v.Hint}, {"leading", v.Leading},
		{"personaBreak", v.PersonaBreak}, {"equity", v.Equity}, {"questionWords", v.QuestionWords}} {
		need(len(f.l) > 0, "vocabulary."+f.name)
	}
	vw := p.VerdictWords
	for _, f := range []struct {
		name string
		l    []string
	}{{"targets", vw.Targets}, {"copulas", vw.Copulas}, {"judgements", vw.Judgements}, {"outcomes", vw.Outcomes},
		{"outcomeVerbs", vw.OutcomeVerbs}, {"scoreNouns", vw.ScoreNouns}, {"praise", vw.Praise}, {"outOf", vw.OutOf},
		{"numbers", vw.Numbers}, {"interrogatives", vw.Interrogatives}} {
		need(len(f.l) > 0, "verdictWords."+f.name)
	}
	need(len(p.Questions.Marks) > 0, "questions.marks")
	need(len(p.Questions.Interrogatives) > 0, "questions.interrogatives")
	need(len(p.Return.Words) > 0, "return.words")
	need(len(p.Return.Fillers) > 0, "return.fillers")
	need(p.LeadingRewrite.Template == "" || strings.Count(p.LeadingRewrite.Template, "{claim}") == 1,
		"leadingRewrite.template with one {claim}")
	o := p.Offline
	need(len(o.Analysis) > 0, "offline.analysis")
	need(len(o.Evaluation) > 0, "offline.evaluation")
	need(len(o.Distress) > 0, "offline.distress")
	need(len(o.Anxiety) > 0, "offline.anxiety")
	for _, k := range LineKeys {
		need(strings.TrimSpace(p.Lines[k]) != "", "lines."+k.String())
	}
	for k := range p.Lines {
		if !knownLine(k) {
			return fmt.Errorf("%w: pack %q: unknown line %q", ErrInvalidPack, p.Language, k)
		}
	}
	for _, k := range PageKeys {
		need(strings.TrimSpace(p.Page[k]) != "", "page."+k)
	}
	for _, k := range PageKeys {
		if err := checkPlaceholders(k, p.Page[k]); err != nil && p.Page[k] != "" {
			return fmt.Errorf("%w: pack %q: page.%s: %w", ErrInvalidPack, p.Language, k, err)
		}
	}
	need(len(p.CommonWords) >= 20, "commonWords (at least 20)")
	if len(missing) > 0 {
		return fmt.Errorf("%w: pack %q lacks %s", ErrIncompletePack, p.Language, strings.Join(missing, ", "))
	}
	return nil
}

func knownCommand(c string) bool {
	for _, k := range CommandOrder {
		if k == c {
			return true
		}
	}
	return false
}

func knownLine(k LineKey) bool {
	for _, l := range LineKeys {
		if l == k {
			return true
		}
	}
	return false
}

// PagePlaceholders are the {name} placeholders each page string has, which the page fills in;
// a string without any has none.
var PagePlaceholders = map[string][]string{
	"progress": {"current", "total"}, "progressLabel": {"current", "total"},
	"warnQuestion": {"minutes"}, "warnExam": {"minutes"},
	"serverAnswered": {"status"}, "stillDisconnected": {"error"},
}

// checkPlaceholders reports a page string that lacks one of its key's placeholders or has one
// the page does not fill in (which the candidate would read as it is).
func checkPlaceholders(key, s string) error {
	want := PagePlaceholders[key]
	var got []string
	for rest := s; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			break
		}
		got = append(got, rest[i+1:i+j])
		rest = rest[i+j+1:]
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			return fmt.Errorf("unknown placeholder {%s} (this string has %s)", g, placeholderList(want))
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			return fmt.Errorf("lacks the placeholder {%s}", w)
		}
	}
	return nil
}

func placeholderList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return "{" + strings.Join(names, "}, {") + "}"
}
