package runtime

import (
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

func mustPack(t *testing.T, tag string) *lang.Pack {
	t.Helper()
	p, err := lang.Lookup(tag)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQuestionsPerLanguage: one_question counts questions by the exam's pack — its marks
// (Arabic "؟", Spanish "¿"), its interrogatives and its auxiliary-and-subject openings — so a
// question written without its mark is still one, and a second question is dropped, in every
// shipped language.
func TestQuestionsPerLanguage(t *testing.T) {
	for _, c := range []struct {
		tag, text string
		want      int
		kept      string // what one_question leaves
	}{
		{"en", "Thanks. Could you say more. Why that one?", 2, "Thanks. Could you say more."},
		{"en", "Have a think. Take your time.", 0, ""},
		{"fr", "Merci. Pourriez-vous préciser. Pourquoi ce choix ?", 2, "Merci. Pourriez-vous préciser."},
		{"fr", "Qu'en pensez-vous. Et comment feriez-vous ?", 2, "Qu'en pensez-vous."},
		{"fr", "Prenez votre temps. Vous pouvez commencer.", 0, ""},
		{"de", "Danke. Können Sie das genauer sagen. Warum diese Wahl?", 2, "Danke. Können Sie das genauer sagen."},
		{"de", "Lassen Sie sich Zeit. Sie können beginnen.", 0, ""},
		{"es", "¿Qué haría usted? ¿Por qué?", 2, "¿Qué haría usted?"},
		{"es", "Gracias. Podría usted precisar. Y cuánto costaría.", 2, "Gracias. Podría usted precisar."},
		{"es", "Tómese su tiempo. Puede empezar.", 0, ""},
		{"ar", "ما رأيكم؟ ولماذا؟", 2, "ما رأيكم؟"},
		{"ar", "شكرا. كيف تنظمون ذلك. ومتى تبدؤون؟", 2, "شكرا. كيف تنظمون ذلك."},
		{"ar", "خذوا وقتكم. يمكنكم البدء.", 0, ""},
	} {
		p := mustPack(t, c.tag)
		if got := QuestionCountIn(p, c.text); got != c.want {
			t.Errorf("%s %q: %d questions, want %d", c.tag, c.text, got, c.want)
		}
		out, _, hit := langVocabFor(p).questionRules.oneQuestionFilter(c.text, "")
		if c.want > 1 && (!hit || out != c.kept) {
			t.Errorf("%s %q: one_question kept %q (hit %v), want %q", c.tag, c.text, out, hit, c.kept)
		}
	}
}

// TestReturnWordsPerLanguage: the words that bring a candidate back from a pause are the
// pack's — "Je suis prêt, on peut reprendre." resumes a French exam — while an answer stays
// an answer in every language.
func TestReturnWordsPerLanguage(t *testing.T) {
	for _, c := range []struct {
		tag, text string
		back      bool
	}{
		{"en", "Okay, I'm ready.", true},
		{"en", "We could open a second line.", false},
		{"fr", "Je suis prêt, on peut reprendre.", true},
		{"fr", "D'accord, allons-y.", true},
		{"fr", "Je pense que le télétravail isole les salariés.", false},
		{"de", "Ich bin bereit, wir können weitermachen.", true},
		{"de", "Ich denke, die Busse sollten öfter fahren.", false},
		{"es", "Ya estoy listo, podemos seguir.", true},
		{"es", "Creo que el turismo sube los precios.", false},
		{"ar", "أنا مستعد، لنكمل.", true},
		{"ar", "أعتقد أن القراءة مفيدة للشباب.", false},
	} {
		if got := vocabularyFor(mustPack(t, c.tag)).onlyReturns(c.text); got != c.back {
			t.Errorf("%s %q: returns %v, want %v", c.tag, c.text, got, c.back)
		}
	}
}

// TestLeadingRewritePerLanguage: the leading_question filter rewords a leading question into
// the pack's neutral question that keeps the claim, in every shipped language (before, only
// English kept the claim; Arabic did not even find the phrase to remove).
func TestLeadingRewritePerLanguage(t *testing.T) {
	for _, c := range []struct{ tag, in, want string }{
		{"en", "Surely you'd agree that a buffet is cheaper?", "What is your view on whether a buffet is cheaper?"},
		{"fr", "Ne pensez-vous pas que le télétravail isole les salariés ?", "Que pensez-vous de l'idée que le télétravail isole les salariés ?"},
		{"fr", "Vous êtes d'accord que les réunions sont trop longues ?", "Que pensez-vous de l'idée que les réunions sont trop longues ?"},
		{"de", "Meinen Sie nicht auch, dass Autos die Luft verschmutzen?", "Wie beurteilen Sie die Aussage, dass Autos die Luft verschmutzen?"},
		{"es", "¿No cree que el turismo sube los precios?", "¿Qué opina de la idea de que el turismo sube los precios?"},
		{"ar", "ألا توافقون على أن القراءة مفيدة للشباب؟", "ما رأيكم في القول بأن القراءة مفيدة للشباب؟"},
	} {
		exam := basicExam(t)
		exam.Language = c.tag
		nf := buildFilters(exam)["plan"]
		out, _, hit := nf.leadingFilter(c.in, normalizeWords(c.in))
		if !hit || out != c.want {
			t.Errorf("%s %q -> %q (hit %v), want %q", c.tag, c.in, out, hit, c.want)
		}
	}
}

// TestEnglishVerdictInEveryExam: an examiner model that slips into English is judged by the
// English verdict detector in an exam of any language, beside the language's own.
func TestEnglishVerdictInEveryExam(t *testing.T) {
	for _, tag := range lang.Builtin().Languages() {
		p := mustPack(t, tag)
		for _, s := range []string{"You scored seven out of ten.", "Your analysis was flawless."} {
			if why := langVocabFor(p).forbiddenMatch(s, normalizeWords(s), vocabularyFor(p).verdictIndex()); why.none() {
				t.Errorf("%s: %q passed", tag, s)
			}
		}
	}
}

// TestLimitWordingPerLanguage: a limit of the exam said in any shipped language is the exam's
// word (rubric_leak keeps it from the candidate), while the limit noun alone is speech.
func TestLimitWordingPerLanguage(t *testing.T) {
	for _, c := range []struct {
		text  string
		limit bool
	}{
		{"You have 1 of 2 clarifications left.", true},
		{"Could you give me a clarification?", false},
		{"Il vous reste deux clarifications.", true},
		{"Vous avez droit à trois relances au maximum.", true},
		{"Puis-je vous demander une précision ?", false},
		{"Sie haben noch zwei Rückfragen übrig.", true},
		{"Haben Sie eine Rückfrage?", false},
		{"Le quedan dos aclaraciones.", true},
		{"¿Necesita una aclaración?", false},
		{"بقي لديكم توضيحان متبقيان.", true},
		{"هل تحتاجون إلى توضيح؟", false},
	} {
		if got := limitWording(normalizeWords(c.text)) != ""; got != c.limit {
			t.Errorf("%q: limit wording %v, want %v", c.text, got, c.limit)
		}
	}
}
