package runtime

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// payloadFields lists a runtime payload type's encoded fields by JSON name, with the fields of
// the runtime package's nested structs as "field.sub", so a field added anywhere in what the
// candidate could be sent is found.
func payloadFields(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for _, name := range jsonFields(t) {
		out = append(out, prefix+name)
		f, _ := fieldByJSON(t, name)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft.PkgPath() == reflect.TypeOf(Event{}).PkgPath() {
			out = append(out, payloadFields(ft, prefix+name+".")...)
		}
	}
	return out
}

func fieldByJSON(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name || n == "" && f.Name == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// TestCandidateFieldsDecided enumerates, by reflection, every field of every runtime payload
// the candidate receives: each must be allowed (in the candidate struct, as the same JSON field
// of the same type) or withheld with a reason. A payload field added without a decision fails
// here, and so does a stale entry in either list.
func TestCandidateFieldsDecided(t *testing.T) {
	used := map[string]bool{}
	for _, typ := range EventTypes {
		p, err := Event{Event: typ, Payload: json.RawMessage(`{}`)}.Decode()
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		allowed := CandidateFields(typ)
		if allowed == nil {
			continue
		}
		rt := reflect.TypeOf(p).Elem()
		ct := reflect.TypeOf(candidateStructs[typ])
		for _, name := range allowed {
			pf, ok := fieldByJSON(rt, name)
			cf, _ := fieldByJSON(ct, name)
			if !ok || pf.Type != cf.Type {
				t.Errorf("%s.%s is allowed but the runtime payload has no such field of type %s", typ, name, cf.Type)
			}
		}
		for _, field := range payloadFields(rt, "") {
			key := typ.String() + "." + field
			top, _, nested := strings.Cut(field, ".")
			inAllow := slices.Contains(allowed, top)
			why, withheld := candidateWithheld[key]
			if withheld {
				used[key] = true
			}
			_, parentWithheld := candidateWithheld[typ.String()+"."+top]
			switch {
			case inAllow && withheld:
				t.Errorf("%s is both allowed and withheld", key)
			case nested && (inAllow || parentWithheld) && !withheld:
				// A nested struct is decided whole: allowed (Progress: the node's index and the
				// node count) or withheld (By, with the actor inside).
			case !inAllow && !withheld:
				t.Errorf("%s has no decision: add it to the candidate struct of %s or to candidateWithheld with a reason", key, typ)
			case withheld && strings.TrimSpace(why) == "":
				t.Errorf("%s is withheld without a reason", key)
			}
		}
	}
	for key := range candidateWithheld {
		if !used[key] {
			t.Errorf("candidateWithheld names %s, which no delivered payload has", key)
		}
	}
}

// fillAll sets every field of a struct to a non-zero value, so omitempty cannot hide a field
// from the check below.
func fillAll(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(7)
	case reflect.Float64, reflect.Float32:
		v.SetFloat(0.5)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(`{}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillAll(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k)
		fillAll(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// TestCandidateViewCarriesOnlyAllowed: with every field of a delivered payload set, the view
// carries exactly the allowed fields and none of the withheld ones.
func TestCandidateViewCarriesOnlyAllowed(t *testing.T) {
	for _, typ := range EventTypes {
		allowed := CandidateFields(typ)
		if allowed == nil {
			continue
		}
		p, _ := Event{Event: typ, Payload: json.RawMessage(`{}`)}.Decode()
		fillAll(reflect.ValueOf(p).Elem())
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		view, ok := CandidateView(Event{Event: typ, Seq: 1, Payload: raw})
		if !ok {
			t.Fatalf("%s withheld: %s", typ, raw)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(view.Payload, &got); err != nil {
			t.Fatal(err)
		}
		for k := range got {
			if !slices.Contains(allowed, k) {
				t.Errorf("%s view carries %s", typ, k)
			}
		}
		for _, k := range allowed {
			if _, ok := got[k]; !ok {
				t.Errorf("%s view lacks allowed field %s: %s", typ, k, view.Payload)
			}
		}
	}
}
