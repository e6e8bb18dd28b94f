package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	goccy "github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
	"gopkg.in/yaml.v3"
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
	if len(src) > MaxSourceBytes {
		return nil, Diagnostics{*CheckShape(name, src, MaxValues)}
	}

	body, extra, err := parse(src)
	if err != nil {
		return nil, Diagnostics{syntaxError(name, src, err)}
	}
	if d := deepNode(name, body, MaxValues); d != nil {
		return nil, Diagnostics{*d}
	}
	if extra != nil {
		d := &decoder{src: srcInfo}
		diags = append(diags, Diagnostic{Pos: d.pos(extra), Severity: Error,
			Message: "more than one YAML document: an exam spec is one document"})
	}
	if body == nil {
		return nil, append(diags, Diagnostic{Pos: top, Severity: Error, Message: "empty document: expected an exam specification"})
	}

	s = &Spec{src: srcInfo}
	d := &decoder{src: srcInfo}
	d.decode("", body, reflect.ValueOf(s).Elem())
	return s, append(diags, d.diags...)
}

// parse reads the one YAML document of src into yaml.v3's node tree (the fastest parser with
// positions available here: a 500-node exam parses in half the time goccy/go-yaml takes). It
// returns the document's content (nil when there is none) and the first node of a second
// document, if any. A panic on hostile input becomes an error: a spec loader must fail with a
// diagnostic, never crash the console.
func parse(src []byte) (body, extra *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, extra, err = nil, nil, fmt.Errorf("unparseable input (%v)", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for docs := 0; ; {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return body, extra, nil
			}
			return nil, nil, err
		}
		content := &doc
		if doc.Kind == yaml.DocumentNode {
			if len(doc.Content) == 0 {
				continue
			}
			content = doc.Content[0]
		}
		docs++
		if docs == 1 {
			body = content
			continue
		}
		return body, content, nil
	}
}

// syntaxError positions a parse failure. yaml.v3 reports only a line, so the file is parsed
// again with goccy/go-yaml, whose errors carry a column and a clearer message; errors are rare
// enough that the second parse costs nothing that matters.
func syntaxError(name string, src []byte, err error) Diagnostic {
	p, msg := Pos{File: name, Line: 1, Col: 1}, strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlErrLine.FindStringSubmatch(msg); m != nil {
		if line, _ := strconv.Atoi(m[1]); line > 0 {
			p.Line = line
		}
		msg = strings.TrimPrefix(msg, m[0])
	}
	if strings.HasPrefix(msg, "exceeded max depth") {
		// Far past MaxDepth: the second parser would take seconds and gigabytes to say so.
		return Diagnostic{Pos: p, Severity: Error, Message: fmt.Sprintf("nested more than %d levels deep: not an exam spec or script", MaxDepth)}
	}
	if m := yamlUnknownAnchor.FindStringSubmatch(msg); m != nil {
		// goccy accepts the document, so find the alias ourselves.
		if i := bytes.Index(src, []byte("*"+m[1])); i >= 0 {
			p.Line = bytes.Count(src[:i], []byte("\n")) + 1
			p.Col = utf8.RuneCount(src[bytes.LastIndexByte(src[:i], '\n')+1:i]) + 1
		}
		return Diagnostic{Pos: p, Severity: Error, Message: "unknown alias *" + m[1]}
	}
	if roughFlowDepth(src) > 4*MaxDepth {
		// The second parser's cost grows with the square of the nesting: keep yaml.v3's line.
		return Diagnostic{Pos: p, Severity: Error, Message: "syntax error: " + msg}
	}
	if gerr := goccyParse(src); gerr != nil {
		var se *goccy.SyntaxError
		if errors.As(gerr, &se) {
			msg = se.Message
			if se.Token != nil && se.Token.Position != nil && se.Token.Position.Line > 0 {
				p.Line, p.Col = se.Token.Position.Line, max(se.Token.Position.Column, 1)
			}
		}
	}
	d := Diagnostic{Pos: p, Severity: Error, Message: "syntax error: " + msg}
	if strings.Contains(msg, "'\t'") || lineStartsWithTab(src, p.Line) {
		// A tab is never indentation in YAML; the parsers only say it cannot start a token.
		d.Message = "syntax error: a tab in the indentation"
		d.Hint = "YAML indents with spaces, never tabs: replace each tab with spaces"
	}
	return d
}

// lineStartsWithTab reports whether line (1-based) of src has a tab in its indentation.
func lineStartsWithTab(src []byte, line int) bool {
	if line < 1 {
		return false
	}
	lines := bytes.SplitN(src, []byte("\n"), line+1)
	if len(lines) < line {
		return false
	}
	l := lines[line-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

var (
	yamlErrLine       = regexp.MustCompile(`^line (\d+): `)
	yamlUnknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// roughFlowDepth is the deepest run of open brackets in src, quotes ignored: an upper bound
// on the flow nesting good enough to keep the slow parser away from hostile input.
func roughFlowDepth(src []byte) int {
	depth, deepest := 0, 0
	for _, c := range src {
		switch c {
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

func goccyParse(src []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unparseable input (%v)", r)
		}
	}()
	_, err = parser.ParseBytes(src, 0)
	return err
}
