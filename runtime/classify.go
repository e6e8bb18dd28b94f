package runtime

import "strings"

// maxCommandWords bounds the utterances the rule-based classifier treats as commands: a long
// answer that happens to contain "move on" or "another way" is an answer, not a command.
const maxCommandWords = 14

// CommandPhrases maps phrases to a command. Rules are tried in order; the first match wins, so
// more specific phrasings come first. A language's rules are its Vocabulary's Commands.
type CommandPhrases struct {
	Command Command
	Phrases []string
}

// englishCommands are the default vocabulary's command phrases.
var englishCommands = []CommandPhrases{
	{CmdSlowDown, []string{"slow down", "more slowly", "speak slower", "talk slower", "too fast", "slower please"}},
	{CmdRequestRephrase, []string{"rephrase", "reword", "say it another way", "say it differently", "put it another way", "ask it another way", "ask it differently", "in simpler words", "in simpler terms"}},
	{CmdRepeat, []string{"repeat", "say that again", "say it again", "pardon", "come again", "didnt catch", "did not catch", "didnt hear", "did not hear", "once more"}},
	{CmdClarification, []string{"what do you mean", "what does that mean", "what is meant by", "clarify", "clarification", "i dont understand", "i do not understand", "not sure what you mean", "explain the question", "what exactly are you asking"}},
	{CmdFinish, []string{"finish the exam", "end the exam", "stop the exam", "finish the test", "end the test", "im done", "i am done", "im finished", "i am finished", "want to finish", "want to stop", "finish now", "end now"}},
	{CmdSkip, []string{"skip", "next question", "move on", "pass on this", "rather not answer", "can we go on"}},
	{CmdPause, []string{"pause", "take a break", "need a break", "short break", "hold on a minute", "give me a minute"}},
	{CmdReviseEarlierAnswer, []string{"change my answer", "change my earlier", "revise my", "correct my earlier", "correct my previous", "go back to my", "go back to the previous", "earlier answer", "previous answer", "add to my earlier", "add something to my"}},
	{CmdThinkingAloud, []string{"let me think", "thinking out loud", "thinking aloud", "give me a moment", "give me a second", "let me see", "just a moment", "let me consider"}},
	{CmdHelp, []string{"help", "how does this work", "what am i supposed to do", "what should i do", "what do i do", "how do i answer"}},
}

// ClassifyCommand is the rule-based command classifier shared by the controller's safety net
// and the offline examiner. It looks only at short utterances, on word boundaries.
func ClassifyCommand(text string) (Command, bool) {
	norm := normalizeWords(text)
	if n := len(norm); n < 3 {
		return "", false
	}
	words := 0
	for i := 1; i < len(norm); i++ {
		if norm[i] == ' ' {
			words++
		}
	}
	if words == 0 || words > maxCommandWords {
		return "", false
	}
	for _, r := range defaultVocabulary.Commands {
		for _, p := range r.Phrases {
			if containsNorm(norm, p) {
				if !standalone(norm, p) {
					// "To save money we should move on to a cheaper supplier" uses a command
					// phrase inside an answer: not a command.
					return "", false
				}
				return r.Command, true
			}
		}
	}
	return "", false
}

// maxCommandContentWords bounds the words of a command utterance outside its command phrase
// and the courtesy words around it: "Could you repeat the question, please?" has none,
// "What do you mean by occupancy?" has one, an answer has several.
const maxCommandContentWords = 2

// commandFillers are the words that surround a command without carrying an answer.
var commandFillers = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the i im me my we us you your can could would will please sorry excuse " +
		"just maybe perhaps do dont does to of for on by it this that one question questions bit little moment " +
		"now again ok okay so um uh hmm er well oh and but is are be was if mind may might should like want wanted " +
		"id ill lets let go get what sir madam thank thanks yes no there here too really again exam test") {
		commandFillers[w] = true
	}
}

// standalone reports whether an utterance containing command phrase p is a command on its own:
// besides the phrase it holds only courtesy words and at most maxCommandContentWords others.
func standalone(norm, p string) bool {
	i := strings.Index(norm, " "+p+" ")
	if i < 0 {
		return false
	}
	rest := norm[:i] + " " + norm[i+len(p)+2:]
	content := 0
	for _, w := range strings.Fields(rest) {
		if !commandFillers[w] {
			content++
		}
	}
	return content <= maxCommandContentWords
}

// affirmatives confirm a pending finish.
var affirmatives = []string{"yes", "yeah", "yep", "sure", "confirm", "i confirm", "correct", "please do", "i am sure", "im sure", "finish", "definitely", "ok", "okay"}

// negatives cancel a pending finish (checked first: "no, I'm not sure").
var negatives = []string{"no", "not", "nope", "cancel", "continue", "dont", "wait"}

// isNegative reports whether a reply to "are you sure?" declines it.
func isNegative(text string) bool {
	norm := normalizeWords(text)
	for _, p := range negatives {
		if containsNorm(norm, p) {
			return true
		}
	}
	return false
}

// isAffirmative reports whether a reply to "are you sure?" confirms it.
func isAffirmative(text string) bool {
	norm := normalizeWords(text)
	for _, p := range negatives {
		if containsNorm(norm, p) {
			return false
		}
	}
	for _, p := range affirmatives {
		if containsNorm(norm, p) {
			return true
		}
	}
	return false
}

func init() {
	for i := range englishCommands {
		for j, p := range englishCommands[i].Phrases {
			englishCommands[i].Phrases[j] = normPhrase(p)
		}
	}
	for i, p := range affirmatives {
		affirmatives[i] = normPhrase(p)
	}
	for i, p := range negatives {
		negatives[i] = normPhrase(p)
	}
}
