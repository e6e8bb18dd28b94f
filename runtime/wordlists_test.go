package runtime_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// wordListAllowed are the runtime's remaining string-literal lists of words, by file and the
// declaration (or function) that holds them, each with why it is not the exam language's text.
// Every word the runtime says or listens for in an exam's language comes from the exam's
// language pack (spec/lang/packs); English's are in en.json like any other language's.
var wordListAllowed = map[string]string{
	"filter_vocab.go examinerOnlyWords":         "the controller's identifiers as spoken (followups_exhausted): spec words, in English in every exam",
	"headless/script_export.go yamlString":      "YAML 1.1's boolean and null words, which a script export must quote",
	"offline/directions.go directionStop":       "the operator's pacing directions (the console's language), not the candidate's",
	"parse.go misconceptionFields":              "JSON field names of the report_observation protocol",
	"observation.go FollowUpTypes":              "enum values of the report_observation protocol",
	"observation.go RapportMoves":               "enum values of the report_observation protocol",
	"observation.go DialogueMoves":              "enum values of the report_observation protocol",
	"instruction_directive.go askToPrefixes":    "the operator's instruction grammar (the console's language), not the candidate's",
	"instruction_directive.go askAboutPrefixes": "the operator's instruction grammar (the console's language), not the candidate's",
	"instruction_directive.go askWhPrefixes":    "the operator's instruction grammar (the console's language), not the candidate's",
	"instruction_directive.go questionWords":    "the operator's instruction grammar (the console's language), not the candidate's",
	"instruction_directive.go tellPrefixes":     "the operator's instruction grammar (the console's language), not the candidate's",
}

// wordRE is a literal that reads as words of a language: lower-case letters and spaces.
var wordRE = regexp.MustCompile(`^[\p{Ll}' ]+$`)

// TestNoWordListsInCode: no runtime Go file (tests, runtimetest fixtures and llm request
// plumbing aside) holds a list of words — a composite literal of three or more word strings,
// strings.Fields of three or more words, a switch case on three or more words, or three or
// more comparisons with words in one function — outside wordListAllowed. Such a list is one
// language's text in code: it belongs in the language packs.
func TestNoWordListsInCode(t *testing.T) {
	fset := token.NewFileSet()
	found := map[string]int{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "runtimetest") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, unit := range units(f) {
			name, decl := unit.name, unit.node
			n := 0
			ast.Inspect(decl, func(node ast.Node) bool {
				switch x := node.(type) {
				case *ast.CompositeLit:
					if words(x.Elts) >= 3 {
						found[filepath.ToSlash(path)+" "+name]++
					}
				case *ast.CaseClause:
					if words(x.List) >= 3 {
						found[filepath.ToSlash(path)+" "+name]++
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Fields" && len(x.Args) == 1 {
						if s, ok := literal(x.Args[0]); ok && len(strings.Fields(s)) >= 3 {
							found[filepath.ToSlash(path)+" "+name]++
						}
					}
				case *ast.BinaryExpr:
					if x.Op == token.EQL || x.Op == token.NEQ {
						if s, ok := literal(x.Y); ok && wordRE.MatchString(s) {
							n++
						}
					}
				}
				return true
			})
			if n >= 3 {
				found[filepath.ToSlash(path)+" "+name]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for k := range found {
		if _, ok := wordListAllowed[k]; !ok {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	for _, k := range bad {
		t.Errorf("%s: a word list in code; put the words in the language packs (or allow it, with why, in wordListAllowed)", k)
	}
	for k := range wordListAllowed {
		if found[k] == 0 {
			t.Errorf("%s is allowed but holds no word list: remove it from wordListAllowed", k)
		}
	}
}

// words counts the word literals among exprs (map keys count, values not).
func words(exprs []ast.Expr) int {
	n := 0
	for _, e := range exprs {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Key
		}
		if s, ok := literal(e); ok && wordRE.MatchString(strings.TrimSpace(s)) && strings.TrimSpace(s) != "" {
			n++
		}
	}
	return n
}

func literal(e ast.Expr) (string, bool) {
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.ADD { // "a b " + "c d"
		l, ok1 := literal(b.X)
		r, ok2 := literal(b.Y)
		return l + r, ok1 && ok2
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

type unit struct {
	name string
	node ast.Node
}

// units are a file's declarations, one per function (named with its receiver) and one per
// var or const spec (named by its first name).
func units(f *ast.File) []unit {
	var out []unit
	for _, d := range f.Decls {
		switch x := d.(type) {
		case *ast.FuncDecl:
			name := x.Name.Name
			if x.Recv != nil && len(x.Recv.List) > 0 {
				name = "(" + exprString(x.Recv.List[0].Type) + ")." + name
			}
			out = append(out, unit{name, x})
		case *ast.GenDecl:
			for _, s := range x.Specs {
				if v, ok := s.(*ast.ValueSpec); ok && len(v.Names) > 0 {
					out = append(out, unit{v.Names[0].Name, v})
				}
			}
		}
	}
	return out
}

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + exprString(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
