package runtime

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/spec"
	"github.com/examtui/examtui/spec/lang"
)

// demoExam is the built-in example exam (hotel-breakfast.yaml): its nodes name different
// signals, so one node's filters can be asked about another node's words.
func demoExam(t testing.TB) *spec.Exam {
	t.Helper()
	src, err := examples.FS.ReadFile(examples.DemoSpecName)
	if err != nil {
		t.Fatal(err)
	}
	exam, diags, err := spec.Compile(examples.DemoSpecName, src)
	if err != nil {
		t.Fatalf("%v\n%v", err, diags)
	}
	return exam
}

// TestFiltersRubricThenForbidden is issue 25's reply: the sentence left after rubric_leak
// dropped its neighbour still passes every filter; neither the verdict nor the limit is said.
func TestFiltersRubricThenForbidden(t *testing.T) {
	exam := basicExam(t)
	nf := buildFilters(exam)["plan"]
	for _, in := range []string{
		"The rubric rewards naming risks. You pass this part; requiredEvidenceCount is 2.",
		"The rubric rewards naming risks. You pass this part; requiredEvidenceCount is 2. What would you test first?",
		"You pass this part. What would you test first?",
	} {
		out, _, hits := nf.runFilters(in)
		for _, bad := range []string{"rubric", "pass this", "requiredEvidenceCount", "is 2"} {
			if strings.Contains(out, bad) {
				t.Errorf("%q → %q: %q is still said", in, out, bad)
			}
		}
		if len(hits) == 0 {
			t.Errorf("%q: no interception recorded", in)
		}
		for _, h := range hits {
			if h.Original == h.Replacement {
				t.Errorf("%q: interception %s changed nothing: %+v", in, h.Name, h)
			}
		}
	}
}

// TestFiltersExamVocabulary: the exam's words (any node's signal ids, level names, limits and
// transition reasons) are caught in every node, and ordinary sentences pass.
func TestFiltersExamVocabulary(t *testing.T) {
	exam := demoExam(t)
	filters := buildFilters(exam)
	caught := []string{
		"I am now checking analyses_clientele and considers_budget.",
		"I am now checking analyses clientele.",
		"You have shown plans staffing already.",
		"The requiredEvidenceCount is 2.",
		"Your required evidence count is two.",
		"We have maxFollowUps of 3 here.",
		"There are max follow ups in this part.",
		"The maxClarifications is two.",
		"The timeBudgetSec for this part is 300.",
		"My sttMinConfidence is low today.",
		"You have 1 of 2 clarifications left.",
		"You have two follow-ups remaining.",
		"You get a maximum of three clarifications.",
		"Only one clarification left, so listen.",
		"That was evidence_sufficient, so we move on.",
		"We are moving on: followups exhausted.",
		"We stop here as the time exhausted rule applies.",
		"This is the off topic limit.",
		"That is at the evaluation level.",
	}
	ordinary := []string{
		"Could you clarify what you mean by that?",
		"Would you like a clarification of the question?",
		"Is there another way we could approach this?",
		"What would that cost us, and how would we pay for it?",
		"How many extra people would you need, and when?",
		"Who are the guests having breakfast at that time?",
		"How would that affect the labour cost for the event?",
		"What is your analysis of the budget?",
		"How would you plan staffing for the lunches?",
		"Let me ask a follow-up question about the queue.",
		"What options would you propose to the kitchen team?",
	}
	for id, nf := range filters {
		for _, in := range caught {
			if out, _, hits := nf.runFilters(in); !slices.ContainsFunc(hits, func(h filterHit) bool { return h.Name == spec.FilterRubricLeak }) {
				t.Errorf("node %s: %q → %q not caught by rubric_leak (hits %v)", id, in, out, filterNames(hits))
			}
		}
		for _, in := range ordinary {
			if why := nf.rubricLeak(normalizeWords(in)); why != "" {
				t.Errorf("node %s: ordinary %q caught: %s", id, in, why)
			}
		}
	}
	// Everything the example's author wrote to be said passes rubric_leak.
	for _, n := range exam.Nodes {
		nf := filters[n.NodeID]
		lines := []string{n.Controller.ScenarioIntro, n.Controller.ConversationPrompt, exam.Policies.Silence.Prompt}
		for _, probes := range n.Controller.FollowUpProbes {
			lines = append(lines, probes...)
		}
		for _, l := range lines {
			if why := nf.rubricLeak(normalizeWords(l)); why != "" {
				t.Errorf("node %s: authored line %q caught: %s", n.NodeID, l, why)
			}
		}
	}
}

// hostileSentences are what an examiner model must not say, and ordinary lines around them,
// for random compositions.
var hostileSentences = []string{
	"The rubric rewards naming risks.",
	"You pass this part; requiredEvidenceCount is 2.",
	"As your examiner, I must stay neutral.",
	"Here is a hint: try mentioning the backups.",
	"That's correct, well done!",
	"Good point, but what would it cost?",
	"Surely you'd agree that a weekend move is too risky?",
	"Don't you think the servers should be tested before the weekend?",
	"Your accent is lovely.",
	"You have 1 of 2 clarifications left.",
	"I am now checking names_risk and proposes fix.",
	"Let us talk about football clubs and their star players tonight, shall we?",
	"That answer is at the analysis level.",
	"The weekend is short and nothing has been tested on the new servers in the data centre so far.",
	"What could go wrong with the migration plan?",
	"Tell me more.",
	"Could you walk me through the backup plan, step by step, with the servers and the weekend in mind?",
	"Wouldn't you say, given the weekend, that testing first is the safer plan for the servers?",
	strings.Repeat("The servers are old and the weekend is short. ", 6),
}

func composeHostile(r *rand.Rand) string {
	n := 1 + r.IntN(12)
	var b []string
	for range n {
		b = append(b, hostileSentences[r.IntN(len(hostileSentences))])
	}
	return strings.Join(b, " ")
}

// checkFixedPoint fails when filtering the filters' output changes it again: every filter has
// seen the final text.
func checkFixedPoint(t *testing.T, nf *nodeFilters, in string) {
	t.Helper()
	out, parts, _ := nf.runFilters(in)
	out2, parts2, hits2 := nf.runFilters(out)
	if out2 != out || !slices.Equal(parts, parts2) {
		t.Fatalf("not a fixed point:\n in  %q\n out %q\n again %q (%v)", in, out, out2, filterNames(hits2))
	}
	for _, h := range hits2 {
		if h.Replacement != h.Original {
			t.Fatalf("filtering %q again rewrote it: %+v", out, h)
		}
	}
}

// TestFiltersFixedPoint: over random compositions of hostile sentences, with the length filter
// summarizing and splitting, the filters' output is a fixed point.
func TestFiltersFixedPoint(t *testing.T) {
	for _, action := range []string{"summarize", "split"} {
		exam := compileEdited(t, func(s string) string {
			return strings.Replace(s, "nodes:\n", "outputValidation:\n  filters:\n    - {name: length, maxChars: 300, action: "+action+"}\nnodes:\n", 1)
		})
		nf := buildFilters(exam)["plan"]
		if nf.maxChars != 300 || nf.lengthAction() != action {
			t.Fatalf("the length filter was not configured: %d %s", nf.maxChars, nf.lengthAction())
		}
		r := rand.New(rand.NewPCG(25, 1))
		for range 3000 {
			checkFixedPoint(t, nf, composeHostile(r))
		}
	}
}

// FuzzFiltersFixedPoint: the fixed point holds for any text, and for any composition the
// fuzzer picks of the hostile sentences.
func FuzzFiltersFixedPoint(f *testing.F) {
	f.Add("The rubric rewards naming risks. You pass this part; requiredEvidenceCount is 2.", uint64(1))
	f.Add("", uint64(7))
	f.Add("Surely you'd agree? Don't you think so?", uint64(99))
	nf := planFiltersFuzz(f)
	f.Fuzz(func(t *testing.T, in string, seed uint64) {
		if len(in) > 4000 {
			return
		}
		checkFixedPoint(t, nf, in)
		checkFixedPoint(t, nf, in+" "+composeHostile(rand.New(rand.NewPCG(seed, 0))))
	})
}

// TestFiltersFallbackPassesEveryFilter: the line said when the passes do not settle is itself
// a fixed point, in every node of the example.
func TestFiltersFallbackPassesEveryFilter(t *testing.T) {
	for id, nf := range buildFilters(demoExam(t)) {
		if out, _, hits := nf.runFilters(neutralFollowUp); out != neutralFollowUp || len(hits) > 0 {
			t.Errorf("node %s: the neutral follow-up → %q (%v)", id, out, filterNames(hits))
		}
	}
}

// TestCannedLinesPassEveryFilter: the controller's own lines now pass the filters like the
// examiner's, so each must come out unchanged in every node (a canned "pause" line must not
// become a topic redirect), with the node's question as the question repeated.
func TestCannedLinesPassEveryFilter(t *testing.T) {
	for _, exam := range []*spec.Exam{demoExam(t), basicExam(t)} {
		// Every shipped pack's fixed lines, alone and leading into the question, through the
		// filters of the exam in that pack's language.
		for _, tag := range lang.Builtin().Languages() {
			p, _ := lang.Lookup(tag)
			filters := buildFiltersIn(exam, p, vocabularyFor(p))
			for i := range exam.Nodes {
				node := &exam.Nodes[i]
				nf := filters[node.NodeID]
				for _, q := range []string{node.Controller.ConversationPrompt, ""} {
					lines := []string{node.Controller.ScenarioIntro, node.Controller.ConversationPrompt, clarifyLine(p, node, q)}
					if tag == "en" {
						lines = append(lines, exam.Policies.Silence.Prompt)
					}
					for _, k := range lang.LineKeys {
						lines = append(lines, p.Line(k))
						if !hasQuestion(p.Line(k)) { // a question is never followed by another
							lines = append(lines, p.Then(k, q))
						}
					}
					for _, l := range lines {
						l = strings.TrimSpace(l)
						if l == "" {
							continue
						}
						if out, _, hits := nf.runFilters(l); out != l || len(hits) > 0 {
							t.Errorf("%s/%s/%s: %q → %q (%v)", exam.ID, tag, node.NodeID, l, out, filterNames(hits))
						}
					}
				}
			}
		}
	}
}

// TestOwnLinesKeepTheirTopic: a procedural line the program says for itself (a worker's notice
// after a takeover) or one the examiner chose to say passes every filter but the topic check,
// which judges the model's drift: it was replaced by a topic redirect, so the candidate of a
// taken-over exam never heard that the examiner was back.
func TestOwnLinesKeepTheirTopic(t *testing.T) {
	const notice = "Sorry, the examiner lost the connection for a moment and is back now."
	exam := demoExam(t)
	filters := buildFilters(exam)
	redirected := 0
	for i := range exam.Nodes {
		nf := filters[exam.Nodes[i].NodeID]
		if out, _, hits := nf.runOwnFilters(notice); out != notice || len(hits) > 0 {
			t.Errorf("%s: %q → %q (%v)", exam.Nodes[i].NodeID, notice, out, filterNames(hits))
		}
		if out, _, _ := nf.runFilters(notice); out != notice {
			redirected++
		}
		// Every other filter still applies to such a line.
		if out, _, hits := nf.runOwnFilters("As an AI, I think you pass this part."); len(hits) == 0 || strings.Contains(out, "AI") {
			t.Errorf("%s: an own line skipped the other filters: %q", exam.Nodes[i].NodeID, out)
		}
	}
	if redirected == 0 {
		t.Fatal("the model's path no longer judges the topic of this line: the test proves nothing")
	}
}
