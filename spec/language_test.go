package spec

import (
	"strings"
	"testing"

	"github.com/examtui/examtui/spec/lang"
)

// langSpec is baseSpec with candidate-facing prose in French and a language tag to fill in.
func langSpec(tag string) string {
	s := strings.Replace(baseSpec, "title: T\n", "title: T\nlanguage: "+tag+"\n", 1)
	s = strings.Replace(s, "    conversationPrompt: Q?\n",
		"    scenarioIntro: \"Vous travaillez dans un hôtel et un client se plaint de la qualité du petit déjeuner.\"\n"+
			"    conversationPrompt: \"Que lui dites-vous, et comment est-ce que vous organisez la suite pour les clients ?\"\n", 1)
	return s
}

// TestCheckLanguageProse: French prose in an exam that says it is English is warned about at
// the first field that reads as French; the same prose with language fr (or fr-CA) is clean.
func TestCheckLanguageProse(t *testing.T) {
	_, diags, err := Compile("t.yaml", []byte(langSpec("en")))
	if err != nil {
		t.Fatal(err)
	}
	w := diags.Warnings()
	if len(w) != 1 || !strings.Contains(w[0].Message, "reads as Français (fr)") || w[0].Pos.Line != 13 {
		t.Fatalf("want one warning at line 13 that the prose reads as French, got:\n%s", diags)
	}
	for _, tag := range []string{"fr", "fr-CA"} {
		if _, diags, err := Compile("t.yaml", []byte(langSpec(tag))); err != nil || len(diags) != 0 {
			t.Errorf("language %s: %v\n%s", tag, err, diags)
		}
	}
	// The ids and the examiner's role message are not the candidate's prose: baseSpec in a
	// French exam gives too few French words to judge, and no warning.
	if _, diags, _ := Compile("t.yaml", []byte(strings.Replace(baseSpec, "title: T\n", "title: T\nlanguage: de\n", 1))); len(diags) != 0 {
		t.Errorf("short prose warned:\n%s", diags)
	}
}

// TestLanguagePackDiagnostics: a language without a pack is refused; a pack added to the
// registry (as the config file adds one) makes it valid; a regional tag uses its base's pack.
func TestLanguagePackDiagnostics(t *testing.T) {
	load := func(tag string) *Spec {
		s, diags := Load("t.yaml", []byte(strings.Replace(baseSpec, "title: T\n", "title: T\nlanguage: "+tag+"\n", 1)))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return s
	}
	if d := LanguagePackDiagnostics(load("pl"), nil); len(d) != 1 || d[0].Severity != Error ||
		!strings.Contains(d[0].Message, `no language pack for "pl"`) || d[0].Pos.Line != 4 {
		t.Fatalf("pl: %s", d)
	}
	for _, tag := range []string{"fr-CA", "ar-EG", "de", "es-419", "en-GB"} {
		if d := LanguagePackDiagnostics(load(tag), nil); len(d) != 0 {
			t.Errorf("%s: %s", tag, d)
		}
	}
	en := *lang.English()
	en.Language = "pl"
	r, err := lang.Builtin().With(&en)
	if err != nil {
		t.Fatal(err)
	}
	if d := LanguagePackDiagnostics(load("pl-PL"), r); len(d) != 0 {
		t.Errorf("pl with a pack: %s", d)
	}
}

// TestDefaultSilencePromptInLanguage: the compiled default silence prompt is the pack's.
func TestDefaultSilencePromptInLanguage(t *testing.T) {
	for tag, want := range map[string]string{"en": DefaultSilencePrompt, "fr-CA": "Prenez votre temps. Souhaitez-vous que je répète la question ?", "pl": DefaultSilencePrompt} {
		e, _, err := Compile("t.yaml", []byte(strings.Replace(baseSpec, "title: T\n", "title: T\nlanguage: "+tag+"\n", 1)))
		if err != nil {
			t.Fatal(err)
		}
		if e.Policies.Silence.Prompt != want {
			t.Errorf("%s: %q, want %q", tag, e.Policies.Silence.Prompt, want)
		}
	}
}
