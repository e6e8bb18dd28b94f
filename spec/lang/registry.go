package lang

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
)

//go:embed packs/*.json
var packFiles embed.FS

// Registry holds packs by language tag. It is read-only once built, so one registry is shared
// by every exam of a process.
type Registry struct {
	packs map[string]*Pack
}

var builtin = sync.OnceValues(func() (*Registry, error) {
	r := &Registry{packs: map[string]*Pack{}}
	entries, err := fs.ReadDir(packFiles, "packs")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := packFiles.ReadFile(path.Join("packs", e.Name()))
		if err != nil {
			return nil, err
		}
		p, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		r.packs[strings.ToLower(p.Language)] = p
	}
	return r, nil
})

// Builtin is the registry of the shipped packs (en, fr, de, es, ar). A shipped pack that does
// not load is a build defect the package's tests catch; Builtin then panics.
func Builtin() *Registry {
	r, err := builtin()
	if err != nil {
		panic(fmt.Sprintf("lang: shipped packs: %v", err))
	}
	return r
}

// Lookup finds the shipped pack of a tag (Builtin().Lookup).
func Lookup(tag string) (*Pack, error) { return Builtin().Lookup(tag) }

// English is the shipped English pack, the default language's.
func English() *Pack {
	p, _ := Builtin().Lookup("en")
	return p
}

// Parse reads one pack file (JSON). Unknown fields are refused, so a misspelt key is an error
// rather than a line silently left in English.
func Parse(data []byte) (*Pack, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Pack
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidPack, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: trailing data after the pack", ErrInvalidPack)
	}
	if p.Language == "" {
		return nil, fmt.Errorf("%w: a pack names its language", ErrInvalidPack)
	}
	if !validTag(p.Language) {
		return nil, fmt.Errorf("%w: invalid language tag %q", ErrInvalidPack, p.Language)
	}
	for k := range p.Lines {
		if !knownLine(k) {
			return nil, fmt.Errorf("%w: pack %q: unknown line %q", ErrInvalidPack, p.Language, k)
		}
	}
	for c := range p.Commands {
		if !knownCommand(c) {
			return nil, fmt.Errorf("%w: pack %q: unknown command %q", ErrInvalidPack, p.Language, c)
		}
	}
	for k := range p.Page {
		if !slices.Contains(PageKeys, k) {
			return nil, fmt.Errorf("%w: pack %q: unknown page string %q", ErrInvalidPack, p.Language, k)
		}
	}
	if p.Direction != DirectionUnknown && !p.Direction.Valid() {
		return nil, fmt.Errorf("%w: pack %q: direction %q (want ltr or rtl)", ErrInvalidPack, p.Language, p.Direction)
	}
	return &p, nil
}

func validTag(tag string) bool {
	parts := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' })
	if len(parts) == 0 || len(parts[0]) < 2 || len(parts[0]) > 3 {
		return false
	}
	for _, p := range parts {
		if len(p) > 8 {
			return false
		}
		for _, r := range p {
			if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return false
			}
		}
	}
	return strings.Count(tag, "-")+strings.Count(tag, "_") == len(parts)-1
}

// With returns a registry holding r's packs and the given ones. A given pack for a language r
// has (or whose base language r has) is laid over that pack (Overlay), so it may name only the
// lines it changes; a pack of a new language must be complete. r is not changed.
func (r *Registry) With(packs ...*Pack) (*Registry, error) {
	out := &Registry{packs: maps.Clone(r.packs)}
	for _, p := range packs {
		tag := strings.ToLower(p.Language)
		base, err := out.Lookup(tag)
		merged := p
		if err == nil {
			merged = Overlay(base, p)
		}
		if err := merged.Validate(); err != nil {
			return nil, err
		}
		out.packs[tag] = merged
	}
	return out, nil
}

// Lookup finds the pack of a tag: the tag itself, else its base language ("fr-CA" → "fr").
func (r *Registry) Lookup(tag string) (*Pack, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-"))
	if p, ok := r.packs[t]; ok {
		return p, nil
	}
	if p, ok := r.packs[Base(t)]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w for %q (packs: %s)", ErrNoPack, tag,
		strings.Join(r.Languages(), ", "))
}

// Languages lists the registry's tags, sorted.
func (r *Registry) Languages() []string {
	return slices.Sorted(maps.Keys(r.packs))
}

// Overlay lays over's non-empty fields over base: lists and lines it gives replace base's,
// the rest stays base's. Neither pack is changed.
func Overlay(base, over *Pack) *Pack {
	p := *base
	p.Language = over.Language
	str := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	list := func(dst *[]string, v []string) {
		if len(v) > 0 {
			*dst = v
		}
	}
	str(&p.Name, over.Name)
	if over.Direction.Valid() {
		p.Direction = over.Direction
	}
	str(&p.Voice, over.Voice)
	p.Commands = maps.Clone(base.Commands)
	for k, v := range over.Commands {
		p.Commands[k] = v
	}
	list(&p.Politeness, over.Politeness)
	list(&p.Affirmatives, over.Affirmatives)
	list(&p.Negatives, over.Negatives)
	list(&p.TurnEnd.Trailing, over.TurnEnd.Trailing)
	list(&p.TurnEnd.Fillers, over.TurnEnd.Fillers)
	list(&p.Backchannels, over.Backchannels)
	v, ov := &p.Vocabulary, over.Vocabulary
	list(&v.Verdict, ov.Verdict)
	list(&v.Praise, ov.Praise)
	list(&v.Rubric, ov.Rubric)
	list(&v.Hint, ov.Hint)
	list(&v.Leading, ov.Leading)
	list(&v.PersonaBreak, ov.PersonaBreak)
	list(&v.Equity, ov.Equity)
	list(&v.QuestionWords, ov.QuestionWords)
	list(&v.Reveal, ov.Reveal)
	list(&v.HintRefusal, ov.HintRefusal)
	list(&v.Stopwords, ov.Stopwords)
	list(&v.Procedural, ov.Procedural)
	overlayLists(&v.Limits, &ov.Limits)
	reach := p.VerdictWords.VerbReach
	overlayLists(&p.VerdictWords, &over.VerdictWords)
	if over.VerdictWords.VerbReach > 0 {
		reach = over.VerdictWords.VerbReach
	}
	p.VerdictWords.VerbReach = reach
	overlayLists(&p.Questions, &over.Questions)
	overlayLists(&p.Return, &over.Return)
	if over.LeadingRewrite.Template != "" {
		p.LeadingRewrite.Template, p.LeadingRewrite.KeepCase = over.LeadingRewrite.Template, over.LeadingRewrite.KeepCase
	}
	list(&p.LeadingRewrite.ClaimLeads, over.LeadingRewrite.ClaimLeads)
	o, oo := &p.Offline, over.Offline
	list(&o.Analysis, oo.Analysis)
	list(&o.Evaluation, oo.Evaluation)
	list(&o.Distress, oo.Distress)
	list(&o.Anxiety, oo.Anxiety)
	p.Lines = maps.Clone(base.Lines)
	maps.Copy(p.Lines, over.Lines)
	p.Page = maps.Clone(base.Page)
	maps.Copy(p.Page, over.Page)
	list(&p.CommonWords, over.CommonWords)
	return &p
}

// overlayLists lays over's non-empty list fields over dst's: dst and over point to the same
// struct type (VerdictWords, Questions, Return); fields that are not lists stay dst's.
func overlayLists(dst, over any) {
	d, o := reflect.ValueOf(dst).Elem(), reflect.ValueOf(over).Elem()
	for i := range d.NumField() {
		if f := o.Field(i); f.Kind() == reflect.Slice && f.Len() > 0 {
			d.Field(i).Set(f)
		}
	}
}
