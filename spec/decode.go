package spec

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
)

// maxValues bounds how many values one spec may decode to, so that YAML aliases cannot expand
// a small file into an enormous one.
const maxValues = 1 << 20

// source remembers where each value of a loaded spec came from. Paths look like
// `nodes[1].transitions[0].to`; the root is "".
type source struct {
	file   string
	sha256 string
	val    map[string]Pos  // position of each value
	key    map[string]Pos  // position of each mapping key
	bad    map[string]bool // values that failed to decode (not reported again as missing)
}

// newSource sizes its maps for about hint values: a spec has a value every 16 bytes or so.
func newSource(file string, hint int) *source {
	return &source{file: file, val: make(map[string]Pos, hint), key: make(map[string]Pos, hint), bad: map[string]bool{}}
}

// decoder fills the Spec structs from goccy/go-yaml's AST, reporting every problem with its
// position instead of stopping at the first.
type decoder struct {
	src     *source
	diags   Diagnostics
	anchors map[string]ast.Node
	values  int
	tooBig  bool
}

func (d *decoder) pos(n ast.Node) Pos {
	p := Pos{File: d.src.file, Line: 1, Col: 1}
	if n == nil {
		return p
	}
	// A block mapping's own token is its first ':'; point at the first key instead, where a
	// reader sees the mapping start.
	switch m := n.(type) {
	case *ast.MappingNode:
		if !m.IsFlowStyle && len(m.Values) > 0 && m.Values[0].Key != nil {
			n = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		if m.Key != nil {
			n = m.Key
		}
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line > 0 {
		p.Line, p.Col = tk.Position.Line, max(tk.Position.Column, 1)
	}
	return p
}

func (d *decoder) errorf(p Pos, hint, format string, args ...any) {
	d.diags = append(d.diags, Diagnostic{Pos: p, Severity: Error, Message: fmt.Sprintf(format, args...), Hint: hint})
}

// field describes one struct field by its JSON name.
type field struct {
	name  string
	index int
}

type structInfo struct {
	fields []field
	byName map[string]int
	names  []string
}

var structCache sync.Map // reflect.Type -> *structInfo

func infoOf(t reflect.Type) *structInfo {
	if v, ok := structCache.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{byName: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		info.byName[name] = len(info.fields)
		info.fields = append(info.fields, field{name: name, index: i})
		info.names = append(info.names, name)
	}
	structCache.Store(t, info)
	return info
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// unwrap resolves anchors, aliases and tags to the node that carries the value.
func (d *decoder) unwrap(n ast.Node) ast.Node {
	for depth := 0; n != nil && depth < 64; depth++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			if v.Name != nil {
				d.anchors[v.Name.GetToken().Value] = v.Value
			}
			n = v.Value
		case *ast.AliasNode:
			if v.Value == nil {
				return nil
			}
			target, ok := d.anchors[v.Value.GetToken().Value]
			if !ok {
				d.errorf(d.pos(v), "", "unknown alias *%s", v.Value.GetToken().Value)
				return nil
			}
			n = target
		case *ast.TagNode:
			n = v.Value
		case *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
	return n
}

func describe(n ast.Node) string {
	if n == nil {
		return "nothing"
	}
	switch v := n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode:
		return fmt.Sprintf("string %q", truncate(v.Value, 40))
	case *ast.LiteralNode:
		return "a block string"
	case *ast.IntegerNode:
		return "integer " + v.GetToken().Value
	case *ast.FloatNode:
		return "number " + v.GetToken().Value
	case *ast.BoolNode:
		return "boolean " + v.GetToken().Value
	case *ast.NullNode:
		return "null"
	case *ast.InfinityNode, *ast.NanNode:
		return "number " + v.GetToken().Value
	}
	return n.Type().String()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// mappingValues returns the key/value pairs of a mapping node, or false if n is not a mapping.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

// keyText returns a mapping key as text.
func (d *decoder) keyText(k ast.MapKeyNode) (string, bool) {
	var n ast.Node = k
	if mk, ok := k.(*ast.MappingKeyNode); ok { // explicit `? key`
		n = mk.Value
	}
	n = d.unwrap(n)
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	}
	return "", false
}

func (d *decoder) count(n ast.Node) bool {
	d.values++
	if d.values > maxValues {
		if !d.tooBig {
			d.tooBig = true
			d.errorf(d.pos(n), "", "document expands to more than %d values (alias expansion?)", maxValues)
		}
		return false
	}
	return true
}

// decode stores node n into v (a settable value), recording positions under path. what names
// the value in messages.
func (d *decoder) decode(path string, n ast.Node, v reflect.Value) {
	raw := n
	n = d.unwrap(n)
	if !d.count(raw) {
		return
	}
	p := d.pos(raw)
	d.src.val[path] = p
	if n == nil {
		return
	}
	if _, ok := n.(*ast.NullNode); ok {
		return // absent; required checks report it
	}
	if _, ok := n.(*ast.MergeKeyNode); ok {
		d.src.bad[path] = true
		d.errorf(p, "", "%s: merge keys (<<) are not supported", nameOf(path))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		nv := reflect.New(v.Type().Elem())
		d.decode(path, raw, nv.Elem())
		v.Set(nv)
	case reflect.Struct:
		d.decodeStruct(path, n, p, v)
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			d.typeError(path, p, "a list", n)
			return
		}
		out := reflect.MakeSlice(v.Type(), len(seq.Values), len(seq.Values))
		for i, item := range seq.Values {
			d.decode(path+"["+strconv.Itoa(i)+"]", item, out.Index(i))
		}
		v.Set(out)
	case reflect.Map:
		d.decodeMap(path, n, p, v)
	case reflect.String:
		switch s := n.(type) {
		case *ast.StringNode:
			v.SetString(s.Value)
		case *ast.LiteralNode:
			if s.Value != nil {
				v.SetString(s.Value.Value)
			}
		default:
			hint := ""
			switch n.(type) {
			case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
				hint = fmt.Sprintf("quote it: \"%s\"", n.GetToken().Value)
			}
			d.src.bad[path] = true
			d.errorf(p, hint, "%s: expected a string, got %s", nameOf(path), describe(n))
		}
	case reflect.Int:
		iv, ok := n.(*ast.IntegerNode)
		if !ok {
			d.typeError(path, p, "an integer", n)
			return
		}
		var x int64
		switch t := iv.Value.(type) {
		case int64:
			x = t
		case uint64:
			if t > math.MaxInt32 {
				d.src.bad[path] = true
				d.errorf(p, "", "%s: %s is too large", nameOf(path), iv.GetToken().Value)
				return
			}
			x = int64(t)
		}
		if x > math.MaxInt32 || x < math.MinInt32 {
			d.src.bad[path] = true
			d.errorf(p, "", "%s: %s is out of range", nameOf(path), iv.GetToken().Value)
			return
		}
		v.SetInt(x)
	case reflect.Float64:
		switch f := n.(type) {
		case *ast.FloatNode:
			v.SetFloat(f.Value)
		case *ast.IntegerNode:
			switch t := f.Value.(type) {
			case int64:
				v.SetFloat(float64(t))
			case uint64:
				v.SetFloat(float64(t))
			}
		case *ast.InfinityNode, *ast.NanNode:
			d.src.bad[path] = true
			d.errorf(p, "", "%s: expected a finite number, got %s", nameOf(path), describe(n))
		default:
			d.typeError(path, p, "a number", n)
		}
	case reflect.Bool:
		b, ok := n.(*ast.BoolNode)
		if !ok {
			d.typeError(path, p, "true or false", n)
			return
		}
		v.SetBool(b.Value)
	default:
		panic("spec: decoder does not handle " + v.Type().String())
	}
}

func (d *decoder) typeError(path string, p Pos, want string, n ast.Node) {
	d.src.bad[path] = true
	d.errorf(p, "", "%s: expected %s, got %s", nameOf(path), want, describe(n))
}

func (d *decoder) decodeStruct(path string, n ast.Node, p Pos, v reflect.Value) {
	pairs, ok := mappingValues(n)
	if !ok {
		d.typeError(path, p, "a mapping", n)
		return
	}
	info := infoOf(v.Type())
	seen := make([]Pos, len(info.fields)) // by field index; Line 0 = not seen yet
	for _, mv := range pairs {
		kp := d.pos(mv.Key)
		if mv.Key == nil {
			continue
		}
		if mv.Key.IsMergeKey() {
			d.errorf(kp, "", "%s: merge keys (<<) are not supported", nameOf(path))
			continue
		}
		name, ok := d.keyText(mv.Key)
		if !ok {
			d.errorf(kp, "", "%s: a key must be a plain string, got %s", nameOf(path), describe(d.unwrap(mv.Key)))
			continue
		}
		i, known := info.byName[name]
		if !known {
			d.errorf(kp, hintFor(name, "fields", info.names), "unknown field %s in %s", name, nameOf(path))
			continue
		}
		if first := seen[i]; first.Line > 0 {
			d.errorf(kp, fmt.Sprintf("first at line %d", first.Line), "duplicate field %s", name)
			continue
		}
		seen[i] = kp
		fp := join(path, name)
		d.src.key[fp] = kp
		d.decode(fp, mv.Value, v.Field(info.fields[i].index))
	}
}

func (d *decoder) decodeMap(path string, n ast.Node, p Pos, v reflect.Value) {
	pairs, ok := mappingValues(n)
	if !ok {
		d.typeError(path, p, "a mapping", n)
		return
	}
	out := reflect.MakeMapWithSize(v.Type(), len(pairs))
	seen := map[string]Pos{}
	for _, mv := range pairs {
		if mv.Key == nil {
			continue
		}
		kp := d.pos(mv.Key)
		name, ok := d.keyText(mv.Key)
		if !ok || mv.Key.IsMergeKey() {
			d.errorf(kp, "", "%s: a key must be a plain string", nameOf(path))
			continue
		}
		if first, dup := seen[name]; dup {
			d.errorf(kp, fmt.Sprintf("first at line %d", first.Line), "duplicate key %s", name)
			continue
		}
		seen[name] = kp
		fp := join(path, name)
		d.src.key[fp] = kp
		ev := reflect.New(v.Type().Elem()).Elem()
		d.decode(fp, mv.Value, ev)
		out.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), ev)
	}
	v.Set(out)
}

// nameOf renders a path for messages: the root is "exam".
func nameOf(path string) string {
	if path == "" {
		return "exam"
	}
	return path
}
