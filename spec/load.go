package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Load parses a spec from YAML or JSON (JSON is YAML). name is the file name used in
// diagnostics. Every problem the loader can see (syntax, unknown fields, wrong types) is
// reported with its line and column; the returned Spec holds whatever could be decoded and is
// nil only when the source could not be parsed at all. Load does not validate the content: use
// Compile or Validate for that.
func Load(name string, src []byte) (*Spec, Diagnostics) {
	s, diags := load(name, src)
	diags.Sort()
	return s, diags
}

func load(name string, src []byte) (s *Spec, diags Diagnostics) {
	sum := sha256.Sum256(src)
	srcInfo := newSource(name, len(src)/16)
	srcInfo.sha256 = hex.EncodeToString(sum[:])
	top := Pos{File: name, Line: 1, Col: 1}

	file, err := parse(src)
	if err != nil {
		p, msg := top, err.Error()
		var se *yaml.SyntaxError
		if errors.As(err, &se) {
			msg = se.Message
			if se.Token != nil && se.Token.Position != nil && se.Token.Position.Line > 0 {
				p.Line, p.Col = se.Token.Position.Line, max(se.Token.Position.Column, 1)
			}
		}
		return nil, Diagnostics{{Pos: p, Severity: Error, Message: "syntax error: " + msg}}
	}

	var body ast.Node
	docs := 0
	for _, doc := range file.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if _, ok := doc.Body.(*ast.CommentGroupNode); ok {
			continue
		}
		docs++
		if docs == 1 {
			body = doc.Body
			continue
		}
		d := &decoder{src: srcInfo}
		diags = append(diags, Diagnostic{Pos: d.pos(doc.Body), Severity: Error,
			Message: "more than one YAML document: an exam spec is one document"})
		break
	}
	if body == nil {
		return nil, append(diags, Diagnostic{Pos: top, Severity: Error, Message: "empty document: expected an exam specification"})
	}

	s = &Spec{src: srcInfo}
	d := &decoder{src: srcInfo, anchors: map[string]ast.Node{}}
	d.decode("", body, reflect.ValueOf(s).Elem())
	return s, append(diags, d.diags...)
}

// parse runs the YAML parser, turning a panic on hostile input into an error: a spec loader
// must fail with a diagnostic, never crash the console.
func parse(src []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("unparseable input (%v)", r)
		}
	}()
	return parser.ParseBytes(src, 0)
}
