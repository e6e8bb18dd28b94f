package runtime

import (
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every test of the runtime fails on a guardrail event whose name is not declared.
func init() {
	undeclaredGuardrail = func(_ *slog.Logger, name string) {
		panic("guardrail_triggered " + strconv.Quote(name) + " is not declared in runtime.Guardrails: add it there")
	}
}

// TestGuardrailsDeclared reads the runtime's source: every guardrail or filter name it
// declares as a constant, and every name written straight into a guardrail_triggered payload,
// must be in Guardrails, so scripts and coverage know each guardrail the runtime can emit.
func TestGuardrailsDeclared(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	notGuardrails := map[string]string{
		"guardrailEvidenceSufficiency": "a rule of the decision trace; no guardrail_triggered carries it",
	}
	fset := token.NewFileSet()
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					typed := false
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "FilterName" {
						typed = true
					}
					if !typed && !strings.HasPrefix(name.Name, "guardrail") {
						continue
					}
					if _, skip := notGuardrails[name.Name]; skip || i >= len(n.Values) {
						continue
					}
					lit, ok := n.Values[i].(*ast.BasicLit)
					if !ok {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					seen++
					if _, ok := LookupGuardrail(v); !ok {
						t.Errorf("%s: %s = %q is not in runtime.Guardrails", fset.Position(name.Pos()), name.Name, v)
					}
				}
			case *ast.CompositeLit:
				id, ok := n.Type.(*ast.Ident)
				if !ok || id.Name != "GuardrailTriggeredPayload" {
					return true
				}
				for _, el := range n.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if k, _ := kv.Key.(*ast.Ident); !ok || k == nil || k.Name != "Guardrail" {
						continue
					}
					if lit, ok := kv.Value.(*ast.BasicLit); ok {
						v, _ := strconv.Unquote(lit.Value)
						if _, known := LookupGuardrail(v); !known {
							t.Errorf("%s: guardrail_triggered %q is not in runtime.Guardrails", fset.Position(lit.Pos()), v)
						}
					}
				}
			}
			return true
		})
	}
	if seen < 10 {
		t.Fatalf("found %d guardrail constants in the runtime's source; the scan is broken", seen)
	}
	for _, g := range Guardrails {
		if g.Kind == GuardrailKindUnknown || g.Name == "" {
			t.Errorf("guardrail %+v has no kind or name", g)
		}
	}
}

// TestEventTable: each row's payload reports its own type and no type is listed twice.
func TestEventTable(t *testing.T) {
	seen := map[EventType]bool{}
	for _, e := range eventTable {
		if seen[e.typ] {
			t.Errorf("%s listed twice", e.typ)
		}
		seen[e.typ] = true
		if got := e.payload().EventType(); got != e.typ {
			t.Errorf("row %s builds a %s payload", e.typ, got)
		}
	}
}
