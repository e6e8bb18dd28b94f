package runtime

import (
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// TestClassifyCommandIn: each shipped language's commands, with its courtesy words around
// them, are commands; the same words inside an answer are not; a courtesy word that is also a
// command ("pardon", "perdone") never hides the command it introduces.
func TestClassifyCommandIn(t *testing.T) {
	for _, tc := range []struct {
		lang, text string
		want       Command
	}{
		{"fr", "Pouvez-vous répéter la question, s'il vous plaît ?", CmdRepeat},
		{"fr", "Pardon, que voulez-vous dire ?", CmdClarification},
		{"fr", "Excusez-moi, pourriez-vous parler plus lentement ?", CmdSlowDown},
		{"fr", "Pourriez-vous reformuler la question ?", CmdRequestRephrase},
		{"fr", "Euh, laissez-moi réfléchir un instant.", CmdThinkingAloud},
		{"fr", "Je voudrais terminer l'examen maintenant, s'il vous plaît.", CmdFinish},
		{"fr", "Est-ce que je peux modifier ma réponse précédente ?", CmdReviseEarlierAnswer},
		{"fr", "Je ne comprends pas la question.", CmdClarification},
		{"fr", "Il faudrait répéter l'enquête auprès des salariés le mois prochain.", ""},
		{"fr", "À mon avis, le télétravail est un progrès parce que les salariés gagnent du temps.", ""},
		{"de", "Könnten Sie die Frage bitte wiederholen?", CmdRepeat},
		{"de", "Entschuldigung, was meinen Sie damit?", CmdClarification},
		{"de", "Bitte etwas langsamer.", CmdSlowDown},
		{"de", "Ich möchte die Prüfung jetzt beenden.", CmdFinish},
		{"de", "Wir sollten die Umfrage unter den Kunden im nächsten Monat wiederholen und auswerten.", ""},
		{"es", "¿Podría repetir la pregunta, por favor?", CmdRepeat},
		{"es", "Perdone, ¿qué quiere decir con eso?", CmdClarification},
		{"es", "¿Podría hablar más despacio, por favor?", CmdSlowDown},
		{"es", "Déjeme pensar un momento.", CmdThinkingAloud},
		{"es", "Quisiera terminar el examen ahora.", CmdFinish},
		{"es", "Habría que repetir la encuesta a los vecinos del centro el mes que viene.", ""},
		{"ar", "هل يمكنكم إعادة السؤال من فضلكم؟", CmdRepeat},
		{"ar", "هل يمكنكم اعادة السؤال من فضلكم", CmdRepeat},                         // without hamza or question mark
		{"ar", "هَلْ يُمْكِنُكُمْ إِعَادَةُ السُّؤَالِ مِنْ فَضْلِكُمْ؟", CmdRepeat}, // fully vowelled
		{"ar", "عفوًا، لم أفهم، ماذا تقصدون؟", CmdClarification},
		{"ar", "تحدثوا ببطء من فضلكم", CmdSlowDown},
		{"ar", "أريد إنهاء الامتحان الآن", CmdFinish},
		{"ar", "في رأيي لا تغني الشاشة عن الكتاب الورقي لأن القراءة على الهاتف أقل تركيزًا", ""},
		// English words in another language's exam are not its commands.
		{"fr", "Could you repeat the question?", ""},
	} {
		p, err := lang.Lookup(tc.lang)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := ClassifyCommandIn(p, tc.text)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: ClassifyCommandIn(%q) = %q, %v; want %q", tc.lang, tc.text, got, ok, tc.want)
		}
	}
}

// TestAffirmativeIn: the reply to "are you sure?" in each language; a negative word wins.
func TestAffirmativeIn(t *testing.T) {
	for _, tc := range []struct {
		lang, text string
		want       bool
	}{
		{"fr", "Oui, je confirme.", true}, {"fr", "Non, finalement je préfère continuer.", false},
		{"fr", "Je ne suis pas sûr.", false}, {"de", "Ja, bitte beenden.", true}, {"de", "Nein, doch nicht.", false},
		{"es", "Sí, estoy seguro.", true}, {"es", "No, quiero continuar.", false},
		{"ar", "نعم، أؤكد ذلك", true}, {"ar", "لا، أريد أن أكمل", false},
	} {
		p, _ := lang.Lookup(tc.lang)
		if got := listenerFor(p).affirmative(tc.text); got != tc.want {
			t.Errorf("%s: affirmative(%q) = %v, want %v", tc.lang, tc.text, got, tc.want)
		}
	}
}

// FuzzClassifyCommandIn: in every language, whatever the text, a command is one of the
// commands and only a short utterance is one.
func FuzzClassifyCommandIn(f *testing.F) {
	for _, s := range []string{"Pouvez-vous répéter la question, s'il vous plaît ?", "هل يمكنكم إعادة السؤال؟", "¿Qué?", "wie bitte"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tag := range lang.Builtin().Languages() {
			p, _ := lang.Lookup(tag)
			cmd, ok := ClassifyCommandIn(p, text)
			if !ok {
				continue
			}
			if !cmd.Valid() {
				t.Fatalf("%s: %q → unknown command %q", tag, text, cmd)
			}
			if n := len(normalizeWords(text)); n > 0 && wordCount(normalizeWords(text)) > maxCommandWords {
				t.Fatalf("%s: %q is a command of %d words", tag, text, wordCount(normalizeWords(text)))
			}
		}
	})
}

func wordCount(norm string) int {
	n := 0
	for i := 1; i < len(norm); i++ {
		if norm[i] == ' ' {
			n++
		}
	}
	return n
}
