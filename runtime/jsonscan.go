package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoders for values of a JSON document already checked with json.Valid. Parsing an
// observation is on every turn's path; reflection-based decoding of each field re-validated
// the bytes and allocated per field, which dominated the per-observation cost. These read the
// validated bytes directly and fall back to encoding/json only for escaped strings, so the
// results are exactly encoding/json's (FuzzParseAgreesWithReference holds them to it).

// jsonKind names the type of a JSON value for error messages.
func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func wrongType(want string, v []byte) error {
	return fmt.Errorf("expected %s, got %s", want, jsonKind(v))
}

// decodeString decodes a string value; null sets *dst to nil.
func decodeString(v []byte, dst **string) error {
	switch v[0] {
	case 'n':
		*dst = nil
		return nil
	case '"':
	default:
		return wrongType("a string", v)
	}
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		s := string(body)
		*dst = &s
		return nil
	}
	// Escapes and invalid UTF-8 (replaced by U+FFFD) are encoding/json's business.
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return err
	}
	*dst = &s
	return nil
}

// decodeBool decodes a boolean value; null sets *dst to nil.
func decodeBool(v []byte, dst **bool) error {
	switch v[0] {
	case 'n':
		*dst = nil
	case 't', 'f':
		b := v[0] == 't'
		*dst = &b
	default:
		return wrongType("a boolean", v)
	}
	return nil
}

// decodeNumber decodes a number value; null sets *dst to nil.
func decodeNumber(v []byte, dst **float64) error {
	switch {
	case v[0] == 'n':
		*dst = nil
		return nil
	case v[0] == '-' || v[0] >= '0' && v[0] <= '9':
	default:
		return wrongType("a number", v)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return fmt.Errorf("number %s out of range", v)
	}
	*dst = &f
	return nil
}

// decodeArray splits an array value into its elements (sub-slices of v); null sets *dst to nil.
func decodeArray(v []byte, dst **[]json.RawMessage) error {
	switch v[0] {
	case 'n':
		*dst = nil
		return nil
	case '[':
	default:
		return wrongType("an array", v)
	}
	items := []json.RawMessage{}
	i := skipWS(v, 1)
	for i < len(v) && v[i] != ']' {
		end := skipValue(v, i)
		items = append(items, v[i:end:end])
		i = skipWS(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipWS(v, i+1)
		}
	}
	*dst = &items
	return nil
}

// unquoteKey returns an object key (as eachField gives it: unquoted, still escaped) as text.
func unquoteKey(key []byte) string {
	k := string(key)
	if bytes.IndexByte(key, '\\') >= 0 {
		if u, err := strconv.Unquote(`"` + k + `"`); err == nil {
			return u
		}
	}
	return k
}

// matchKey finds key among names as encoding/json matches struct fields: an exact match
// first, otherwise a case-insensitive one. It returns -1 for an unknown key.
func matchKey(key []byte, names []string) int {
	k := unquoteKey(key)
	for i, n := range names {
		if k == n {
			return i
		}
	}
	for i, n := range names {
		if strings.EqualFold(k, n) {
			return i
		}
	}
	return -1
}

// decodeObject calls set for each known member of an object value, in document order (a
// repeated key is set again: the last one wins, as in encoding/json). null is an empty object.
func decodeObject(v []byte, names []string, set func(i int, val []byte) error) error {
	switch v[0] {
	case 'n':
		return nil
	case '{':
	default:
		return wrongType("an object", v)
	}
	var err error
	eachField(v, func(key, val []byte) {
		if err != nil {
			return
		}
		if i := matchKey(key, names); i >= 0 {
			err = set(i, val)
		}
	})
	return err
}
