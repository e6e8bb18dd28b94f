package spec

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// maxValues bounds how many values one spec may decode to, so that YAML aliases cannot expand
// a small file into an enormous one. A variable only so that a test can lower it.
var maxValues = 1 << 20

// source remembers where each value of a loaded spec came from. Paths look like
// `nodes[1].transitions[0].to`; the root is "".
type source struct {
	file   string
	sha256 string
	val    map[string]Pos  // position of each value
	key    map[string]Pos  // position of each mapping key
	bad    map[string]bool // values that failed to decode (not reported again as missing)
	null   map[string]bool // values written as null (~): read as absent
	// truncated is set when decoding stopped at maxValues: what was decoded is not the file.
	truncated bool
}

// newSource sizes its maps for about hint values: a spec has a value every 16 bytes or so.
func newSource(file string, hint int) *source {
	return &source{file: file, val: make(map[string]Pos, hint), key: make(map[string]Pos, hint), bad: map[string]bool{}, null: map[string]bool{}}
}

// decoder fills the Spec structs from yaml.v3's node tree, reporting every problem with its
// position instead of stopping at the first.
type decoder struct {
	src    *source
	diags  Diagnostics
	values int
	tooBig bool
}

func (d *decoder) pos(n *yaml.Node) Pos {
	p := Pos{File: d.src.file, Line: 1, Col: 1}
	if n != nil && n.Line > 0 {
		p.Line, p.Col = n.Line, max(n.Column, 1)
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

// Resolved scalar tags (yaml.v3 tags every parsed scalar).
const (
	tagStr   = "!!str"
	tagInt   = "!!int"
	tagFloat = "!!float"
	tagBool  = "!!bool"
	tagNull  = "!!null"
	tagMerge = "!!merge"
)

// unwrap resolves documents and aliases to the node that carries the value.
func (d *decoder) unwrap(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && depth < 64; depth++ {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return n
}

// scalarTag is a scalar's resolved short tag; scalars with other tags (timestamps, custom
// tags) read as strings.
func scalarTag(n *yaml.Node) string {
	switch t := n.ShortTag(); t {
	case tagInt, tagFloat, tagBool, tagNull, tagMerge:
		return t
	}
	return tagStr
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && scalarTag(n) == tagNull }

func isMerge(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && scalarTag(n) == tagMerge
}

func describe(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch scalarTag(n) {
		case tagInt:
			return "integer " + n.Value
		case tagFloat:
			return "number " + n.Value
		case tagBool:
			return "boolean " + n.Value
		case tagNull:
			return "null"
		case tagMerge:
			return "a merge key"
		}
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return "a block string"
		}
		return fmt.Sprintf("string %q", truncate(n.Value, 40))
	}
	return "nothing"
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// mappingPairs returns the key and value nodes of a mapping, or false if n is not a mapping.
func mappingPairs(n *yaml.Node) ([]*yaml.Node, bool) {
	if n.Kind != yaml.MappingNode {
		return nil, false
	}
	return n.Content, true
}

// keyText returns a mapping key as text.
func (d *decoder) keyText(k *yaml.Node) (string, bool) {
	k = d.unwrap(k)
	if k == nil || k.Kind != yaml.ScalarNode {
		return "", false
	}
	switch scalarTag(k) {
	case tagNull, tagMerge:
		return "", false
	}
	return k.Value, true
}

func (d *decoder) count(n *yaml.Node) bool {
	d.values++
	if d.values > maxValues {
		if !d.tooBig {
			d.tooBig = true
			d.src.truncated = true
			d.errorf(d.pos(n), "", "document expands to more than %d values (alias expansion?)", maxValues)
		}
		return false
	}
	return true
}

// decode stores node n into v (a settable value), recording positions under path. what names
// the value in messages.
func (d *decoder) decode(path string, n *yaml.Node, v reflect.Value) {
	raw := n
	n = d.unwrap(n)
	if !d.count(raw) {
		return
	}
	p := d.pos(raw)
	d.src.val[path] = p
	if n == nil || isNull(n) {
		if n != nil {
			d.src.null[path] = true
		}
		return // absent; required checks report it
	}
	if isMerge(n) {
		d.badValue(path, p, "", "merge keys (<<) are not supported")
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
		if n.Kind != yaml.SequenceNode {
			d.typeError(path, p, "a list", n)
			return
		}
		out := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			ip := path + "[" + strconv.Itoa(i) + "]"
			d.decode(ip, item, out.Index(i))
			// null reads as absent, but an absent list item is no item: the JSON Schema
			// rejects it too, and a silent "" would stand in for it.
			if d.src.null[ip] {
				d.badValue(ip, d.src.val[ip], "remove the item or give it a value", "a list item must not be null")
			}
		}
		v.Set(out)
	case reflect.Map:
		d.decodeMap(path, n, p, v)
	case reflect.String:
		if n.Kind == yaml.ScalarNode && scalarTag(n) == tagStr {
			v.SetString(n.Value)
			return
		}
		hint := ""
		if n.Kind == yaml.ScalarNode {
			switch scalarTag(n) {
			case tagInt, tagFloat, tagBool:
				hint = fmt.Sprintf("quote it: \"%s\"", n.Value)
			}
		}
		d.badValue(path, p, hint, "expected a string, got %s", describe(n))
	case reflect.Int:
		if n.Kind == yaml.ScalarNode && scalarTag(n) == tagFloat {
			// JSON (and so JSON Schema) has one number type: 300.0 is the integer 300.
			f, err := parseYAMLFloat(n.Value)
			if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
				d.typeError(path, p, "an integer", n)
				return
			}
			if f > math.MaxInt32 || f < math.MinInt32 {
				d.badValue(path, p, "", "%s is out of range", n.Value)
				return
			}
			v.SetInt(int64(f))
			return
		}
		if n.Kind != yaml.ScalarNode || scalarTag(n) != tagInt {
			d.typeError(path, p, "an integer", n)
			return
		}
		x, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			if _, uerr := strconv.ParseUint(n.Value, 0, 64); uerr == nil {
				d.badValue(path, p, "", "%s is too large", n.Value)
			} else {
				d.badValue(path, p, "", "%s is out of range", n.Value)
			}
			return
		}
		if x > math.MaxInt32 || x < math.MinInt32 {
			d.badValue(path, p, "", "%s is out of range", n.Value)
			return
		}
		v.SetInt(x)
	case reflect.Float64:
		if n.Kind != yaml.ScalarNode {
			d.typeError(path, p, "a number", n)
			return
		}
		switch scalarTag(n) {
		case tagInt:
			if x, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
				v.SetFloat(float64(x))
			} else if u, err := strconv.ParseUint(n.Value, 0, 64); err == nil {
				v.SetFloat(float64(u))
			} else {
				d.typeError(path, p, "a number", n)
			}
		case tagFloat:
			f, err := parseYAMLFloat(n.Value)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				d.badValue(path, p, "", "expected a finite number, got %s", describe(n))
				return
			}
			v.SetFloat(f)
		default:
			d.typeError(path, p, "a number", n)
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || scalarTag(n) != tagBool {
			d.typeError(path, p, "true or false", n)
			return
		}
		v.SetBool(strings.EqualFold(n.Value, "true"))
	default:
		panic("spec: decoder does not handle " + v.Type().String())
	}
}

// parseYAMLFloat reads a float scalar as YAML writes it (".inf", ".nan", "1_000.5" aside from
// Go's own syntax).
func parseYAMLFloat(s string) (float64, error) {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case ".nan":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
}

// idKey is the field that names a mapping of these fields (id, nodeId, signalType), or "".
func idKey(names []string) string {
	for _, k := range []string{"id", "nodeId", "signalType"} {
		if slices.Contains(names, k) {
			return k
		}
	}
	return ""
}

func (d *decoder) typeError(path string, p Pos, want string, n *yaml.Node) {
	d.badValue(path, p, "", "expected %s, got %s", want, describe(n))
}

// badValue marks path as bad (the checks that follow leave it alone) and reports, after the
// field's name, what is wrong with its value.
func (d *decoder) badValue(path string, p Pos, hint, format string, args ...any) {
	d.src.bad[path] = true
	d.errorf(p, hint, "%s: "+format, append([]any{nameOf(path)}, args...)...)
}

func (d *decoder) decodeStruct(path string, n *yaml.Node, p Pos, v reflect.Value) {
	pairs, ok := mappingPairs(n)
	info := infoOf(v.Type())
	if !ok {
		// A list item written as its id alone ("- weekend" for a variant) is one mistake:
		// say how to write it, and the checks that follow leave the item alone.
		hint := ""
		if key := idKey(info.names); key != "" && n.Kind == yaml.ScalarNode && n.Value != "" {
			hint = fmt.Sprintf("write it as a mapping, one field a line: %s: %s", key, n.Value)
		}
		d.badValue(path, p, hint, "expected a mapping, got %s", describe(n))
		return
	}
	seen := make([]Pos, len(info.fields)) // by field index; Line 0 = not seen yet
	for i := 0; i+1 < len(pairs); i += 2 {
		key, val := pairs[i], pairs[i+1]
		kp := d.pos(key)
		if isMerge(key) {
			d.errorf(kp, "", "%s: merge keys (<<) are not supported", nameOf(path))
			continue
		}
		name, ok := d.keyText(key)
		if !ok {
			d.errorf(kp, "", "%s: a key must be a plain string, got %s", nameOf(path), describe(d.unwrap(key)))
			continue
		}
		fi, known := info.byName[name]
		if !known {
			d.errorf(kp, hintFor(name, "fields", info.names), "unknown field %s in %s", name, nameOf(path))
			continue
		}
		if first := seen[fi]; first.Line > 0 {
			d.errorf(kp, fmt.Sprintf("first at line %d", first.Line), "duplicate field %s in %s", name, nameOf(path))
			continue
		}
		seen[fi] = kp
		fp := join(path, name)
		d.src.key[fp] = kp
		d.decode(fp, val, v.Field(info.fields[fi].index))
	}
}

func (d *decoder) decodeMap(path string, n *yaml.Node, p Pos, v reflect.Value) {
	pairs, ok := mappingPairs(n)
	if !ok {
		d.typeError(path, p, "a mapping", n)
		return
	}
	out := reflect.MakeMapWithSize(v.Type(), len(pairs)/2)
	seen := map[string]Pos{}
	for i := 0; i+1 < len(pairs); i += 2 {
		key, val := pairs[i], pairs[i+1]
		kp := d.pos(key)
		name, ok := d.keyText(key)
		if !ok {
			d.errorf(kp, "", "%s: a key must be a plain string", nameOf(path))
			continue
		}
		if first, dup := seen[name]; dup {
			d.errorf(kp, fmt.Sprintf("first at line %d", first.Line), "duplicate key %s in %s", name, nameOf(path))
			continue
		}
		seen[name] = kp
		fp := join(path, name)
		d.src.key[fp] = kp
		ev := reflect.New(v.Type().Elem()).Elem()
		d.decode(fp, val, ev)
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
