package runtime

import (
	"strconv"
	"strings"

	"github.com/examtui/examtui/spec"
)

// The instruction echo guard. An examiner's instruction is guidance for the examiner bot;
// an LLM given "The candidate looks tired, wrap up soon" must not answer "The candidate looks
// tired, so let's wrap up". While an instruction is pending (queued) or being applied (the
// turn or admin run that carries it), every line the examiner generated is checked here,
// before the node's output filters: a sentence that repeats a run of echoRunWords of the
// instruction's words is dropped and the drop is reported as a guardrail_triggered
// (instruction_echo). What an instruction addressed to the candidate carries ("tell the
// candidate that we have five minutes left": "we have five minutes left") is meant to be
// said, so only its framing words are guarded. A line to say (AdminSay) is the examiner's
// own words and is not checked.

// guardrailInstructionEcho names the guard; typed as a filter name because its interception
// travels as a filterHit.
const guardrailInstructionEcho spec.FilterName = "instruction_echo"

// echoRunWords is how many consecutive words of an instruction make a repetition: enough that
// ordinary phrases ("the next question") do not trip it, few enough to catch a paraphrase
// that keeps a clause of the instruction.
const echoRunWords = 4

// outputFilters is the one entry to the output filters for what an examiner generated (a
// turn's reply, streamed or whole, and an admin or command reply): the instruction echo guard,
// then the node's pipeline (runFilters). Its interception comes first among the hits. Caller
// holds mu.
func (c *Controller) outputFilters(nf *nodeFilters, text string) (string, []string, []filterHit) {
	text, echo := instructionEcho(nf.lv, text, c.guardedInstructions())
	out, parts, hits := nf.withInstructionTopic(c.applying).runFilters(text)
	if echo != nil {
		hits = append([]filterHit{*echo}, hits...)
	}
	return out, parts, hits
}

// guardedInstructions are the instructions whose words must not be read out now: those being
// applied and those still queued. Caller holds mu.
func (c *Controller) guardedInstructions() []string {
	if len(c.applying) == 0 && len(c.queued) == 0 {
		return nil
	}
	out := append([]string(nil), c.applying...)
	for _, a := range c.queued {
		out = append(out, a.Text)
	}
	return out
}

// instructionEcho drops from text the sentences that repeat an instruction. With nothing
// dropped it returns text and nil; when every sentence goes, what is left keeps a question
// if text asked one (keepQuestion, as the other dropping filters do).
func instructionEcho(lv *langVocab, text string, instructions []string) (string, *filterHit) {
	runs := echoRuns(instructions)
	if len(runs) == 0 {
		return text, nil
	}
	var kept []string
	first := ""
	for _, s := range SplitSentences(text) {
		if m := echoMatch(normPhrase(s), runs); m != "" {
			if first == "" {
				first = m
			}
			continue
		}
		kept = append(kept, s)
	}
	if first == "" {
		return text, nil
	}
	out := lv.keepQuestion(text, strings.Join(kept, " "))
	return out, &filterHit{Name: guardrailInstructionEcho, Action: "drop", Original: text, Replacement: out,
		Detail: "repeats the examiner's instruction: " + strconv.Quote(first), Reason: "repeats the examiner's instruction", Phrase: first}
}

// echoRuns are the guarded word runs of the instructions: every run of echoRunWords
// consecutive normalized words of an instruction's guarded part that holds at least one
// content word (so "and that is the" alone never matches).
func echoRuns(instructions []string) map[string]bool {
	runs := map[string]bool{}
	for _, in := range instructions {
		words := strings.Fields(normPhrase(guardedPart(in)))
		for i := 0; i+echoRunWords <= len(words); i++ {
			run := words[i : i+echoRunWords]
			if hasContentWord(run) {
				runs[strings.Join(run, " ")] = true
			}
		}
	}
	return runs
}

// guardedPart is the part of an instruction that must not be read out: all of it, or, for an
// instruction addressed to the candidate, the words before what it carries for them.
func guardedPart(instruction string) string {
	instruction = strings.TrimSpace(instruction)
	d, ok := parseDirective(instruction)
	if !ok {
		return instruction
	}
	if i := strings.Index(instruction, d.payload); i >= 0 {
		return instruction[:i]
	}
	return instruction
}

func hasContentWord(words []string) bool {
	for _, w := range words {
		if len(w) >= 4 && !stopwords[w] {
			return true
		}
	}
	return false
}

// echoMatch returns the first guarded run a normalized sentence repeats, or "".
func echoMatch(norm string, runs map[string]bool) string {
	words := strings.Fields(norm)
	for i := 0; i+echoRunWords <= len(words); i++ {
		if run := strings.Join(words[i:i+echoRunWords], " "); runs[run] {
			return run
		}
	}
	return ""
}
