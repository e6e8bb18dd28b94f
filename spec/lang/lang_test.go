package lang_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/testutil"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/examtui/examtui/spec/lang"
)

var shipped = []string{"ar", "de", "en", "es", "fr"}

func TestBuiltinPacksComplete(t *testing.T) {
	r := lang.Builtin()
	if got := r.Languages(); !slices.Equal(got, shipped) {
		t.Fatalf("shipped packs %v, want %v", got, shipped)
	}
	for _, tag := range shipped {
		p, err := r.Lookup(tag)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestLookupFallsBackToBase(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"fr", "fr"}, {"fr-CA", "fr"}, {"FR_ca", "fr"}, {"ar-EG", "ar"}, {"de-AT", "de"}, {"es-419", "es"},
		{"en-GB", "en"}, {" es ", "es"},
	} {
		p, err := lang.Lookup(tc.tag)
		if err != nil || p.Language != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", tc.tag, p, err, tc.want)
		}
	}
	for _, tag := range []string{"pl", "sl-SI", "", "x"} {
		if _, err := lang.Lookup(tag); !errors.Is(err, lang.ErrNoPack) {
			t.Errorf("Lookup(%q) = %v, want ErrNoPack", tag, err)
		}
	}
}

// TestSchemaAcceptsPacks: the shipped packs are valid against the published schema, and the
// schema refuses what Parse refuses.
func TestSchemaAcceptsPacks(t *testing.T) {
	sch := compileSchema(t)
	for _, tag := range shipped {
		p, _ := lang.Lookup(tag)
		b, _ := json.Marshal(p)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", tag, err)
		}
	}
	for _, bad := range []string{
		`{"language":"fr","lines":{"thankyou":"Merci."}}`,
		`{"language":"fr","colour":"red"}`,
		`{"language":"fr","direction":"up"}`,
		`{"language":"fr","commands":{"dance":["dansez"]}}`,
		`{"language":"français"}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if sch.Validate(inst) == nil {
			t.Errorf("schema accepts %s", bad)
		}
		if _, err := lang.Parse([]byte(bad)); !errors.Is(err, lang.ErrInvalidPack) {
			t.Errorf("Parse(%s) = %v, want ErrInvalidPack", bad, err)
		}
	}
}

// TestSchemaParity: the schema names exactly the keys the Go types and key lists have.
func TestSchemaParity(t *testing.T) {
	var doc struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(lang.JSONSchema(), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	top := map[string]any{}
	for k := range doc.Properties {
		top[k] = nil
	}
	if got, want := keys(top), jsonTags(reflect.TypeOf(lang.Pack{})); !slices.Equal(got, want) {
		t.Errorf("schema fields %v, Go fields %v", got, want)
	}
	var lines, cmds []string
	for _, k := range lang.LineKeys {
		lines = append(lines, k.String())
	}
	cmds = append(cmds, lang.CommandOrder...)
	sort.Strings(lines)
	sort.Strings(cmds)
	page := slices.Sorted(slices.Values(lang.PageKeys))
	for name, want := range map[string][]string{
		"lines": lines, "commands": cmds, "page": page,
		"turnEnd":        jsonTags(reflect.TypeOf(lang.TurnEnd{})),
		"vocabulary":     jsonTags(reflect.TypeOf(lang.Vocabulary{})),
		"offline":        jsonTags(reflect.TypeOf(lang.Offline{})),
		"verdictWords":   jsonTags(reflect.TypeOf(lang.VerdictWords{})),
		"questions":      jsonTags(reflect.TypeOf(lang.Questions{})),
		"return":         jsonTags(reflect.TypeOf(lang.Return{})),
		"leadingRewrite": jsonTags(reflect.TypeOf(lang.LeadingRewrite{})),
	} {
		if got := keys(doc.Properties[name].Properties); !slices.Equal(got, want) {
			t.Errorf("schema %s keys %v, want %v", name, got, want)
		}
	}
}

func jsonTags(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return testutil.CompileSchema(t, lang.JSONSchema(), "https://examtui.dev/schema/language-pack.json")
}

// TestWithOverlaysAndAdds: a config pack for a shipped language changes only what it names; a
// regional pack falls back to its base for the rest; a new language must be complete.
func TestWithOverlaysAndAdds(t *testing.T) {
	fr, _ := lang.Lookup("fr")
	over, err := lang.Parse([]byte(`{"language":"fr-CA","voice":"fr-ca","lines":{"holding":"Un instant, je vous prie."}}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := lang.Builtin().With(over)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := r.Lookup("fr-CA")
	if ca.Line(lang.LineHolding) != "Un instant, je vous prie." || ca.Voice != "fr-ca" {
		t.Errorf("override not applied: %q %q", ca.Line(lang.LineHolding), ca.Voice)
	}
	if ca.Line(lang.LineThankYou) != fr.Line(lang.LineThankYou) || !slices.Equal(ca.Commands["repeat"], fr.Commands["repeat"]) {
		t.Error("a regional pack lost its base's lines")
	}
	if got, _ := r.Lookup("fr"); got.Line(lang.LineHolding) != fr.Line(lang.LineHolding) {
		t.Error("the base pack changed")
	}
	if got, _ := lang.Lookup("fr"); got.Line(lang.LineHolding) != "Un instant, s'il vous plaît." {
		t.Error("the shipped registry changed")
	}
	pl, _ := lang.Parse([]byte(`{"language":"pl","lines":{"thankYou":"Dziękuję."}}`))
	if _, err := lang.Builtin().With(pl); !errors.Is(err, lang.ErrIncompletePack) {
		t.Errorf("an incomplete new language: %v, want ErrIncompletePack", err)
	}
	// A complete new language: the English pack retagged.
	en, _ := lang.Lookup("en")
	cp := *en
	cp.Language = "pl"
	r2, err := lang.Builtin().With(&cp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Lookup("pl-PL"); err != nil {
		t.Error(err)
	}
}

// TestFormalRegister: the shipped lines address the candidate formally (vous, Sie, usted, and
// the Arabic plural of respect), never with the familiar forms.
func TestFormalRegister(t *testing.T) {
	familiar := map[string][]string{
		"fr": {"tu", "te", "toi", "ton", "ta", "tes", "t"},
		"de": {"du", "dich", "dir", "dein", "deine", "deinen"},
		"es": {"tú", "te", "ti", "tu", "tus", "puedes", "quieres", "tienes"},
		"ar": {"أنت", "لك", "تريد", "يمكنك"},
	}
	formal := map[string][]string{"fr": {"vous"}, "de": {"sie"}, "es": {"usted", "le", "su"}, "ar": {"لكم", "يمكنكم", "تودون"}}
	for tag, bad := range familiar {
		p, _ := lang.Lookup(tag)
		formalSeen := false
		for _, k := range lang.LineKeys {
			ws := lang.Words(p.Line(k))
			for _, w := range bad {
				if slices.Contains(ws, string(mapFold(w))) {
					t.Errorf("%s %s uses the familiar %q: %s", tag, k, w, p.Line(k))
				}
			}
			for _, w := range formal[tag] {
				if slices.Contains(ws, mapFold(w)) {
					formalSeen = true
				}
			}
		}
		for _, k := range lang.PageKeys {
			ws := lang.Words(p.Page[k])
			for _, w := range bad {
				if slices.Contains(ws, mapFold(w)) {
					t.Errorf("%s page %s uses the familiar %q: %s", tag, k, w, p.Page[k])
				}
			}
		}
		if !formalSeen {
			t.Errorf("%s: no line addresses the candidate formally", tag)
		}
	}
}

func mapFold(w string) string { return strings.Join(lang.Words(w), " ") }

func TestGuess(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Vous travaillez dans un hôtel et un client se plaint de la qualité du petit déjeuner. Que lui dites-vous ?", "fr"},
		{"Sie arbeiten in einem Hotel, und ein Gast beschwert sich über das Frühstück. Was sagen Sie ihm?", "de"},
		{"Usted trabaja en un hotel y un cliente se queja del desayuno. ¿Qué le dice?", "es"},
		{"أنتم تعملون في فندق، ويشتكي أحد النزلاء من الفطور. ماذا تقولون له؟", "ar"},
		{"You work in a hotel and a guest complains about the breakfast. What would you say to them?", "en"},
	} {
		if got, hits, _ := lang.Builtin().Guess(tc.text); got != tc.want || hits < 3 {
			t.Errorf("Guess(%q) = %s (%d hits), want %s", tc.text, got, hits, tc.want)
		}
	}
}

func TestWordsFoldsArabic(t *testing.T) {
	// With and without short vowels, hamza on the alef, tatweel: the same words.
	a := lang.Words("أَعِدْ السُّؤالَ مِن فضلكــم")
	b := lang.Words("اعد السؤال من فضلكم")
	if !slices.Equal(a, b) {
		t.Errorf("%q != %q", a, b)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{"language":"fr"}`, `{"language":"fr-CA","lines":{"holding":"x"}}`, `[]`, `{"language":"ar","direction":"rtl"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := lang.Parse(data)
		if err != nil {
			if !errors.Is(err, lang.ErrInvalidPack) {
				t.Fatalf("error not ErrInvalidPack: %v", err)
			}
			return
		}
		// A parsed pack laid over English is either complete or refused with a named error.
		r, err := lang.Builtin().With(p)
		if err != nil {
			if !errors.Is(err, lang.ErrIncompletePack) && !errors.Is(err, lang.ErrInvalidPack) {
				t.Fatalf("With: %v", err)
			}
			return
		}
		if _, err := r.Lookup(p.Language); err != nil {
			t.Fatalf("added %q but Lookup fails: %v", p.Language, err)
		}
	})
}

// TestPagePlaceholders: a page string keeps the placeholders the page fills in ({current} of
// {total}), and a pack whose string lacks one or has another is refused, from the config file
// as from the shipped ones.
func TestPagePlaceholders(t *testing.T) {
	for _, tc := range []struct {
		key, text string
		ok        bool
	}{
		{"progress", "{current} sur {total}", true},
		{"progress", "{total} : {current}", true},
		{"progress", "{current} sur", false},
		{"progress", "{current} sur {totale}", false},
		{"send", "Envoyer {x}", false},
		{"send", "Envoyer", true},
		{"warnExam", "Noch etwa {minutes} Min.", true},
	} {
		over := &lang.Pack{Language: "fr-CA", Page: map[string]string{tc.key: tc.text}}
		_, err := lang.Builtin().With(over)
		if (err == nil) != tc.ok {
			t.Errorf("%s %q: %v, want ok %v", tc.key, tc.text, err, tc.ok)
		}
		if err != nil && !errors.Is(err, lang.ErrInvalidPack) {
			t.Errorf("%s %q: %v, want ErrInvalidPack", tc.key, tc.text, err)
		}
	}
}
