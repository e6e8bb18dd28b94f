package tui

import (
	"bytes"
	"reflect"

	"github.com/examtui/examtui/internal/textsafe"
)

// Event text reaches the console from places the console does not control: a candidate typing
// in a LiveKit room, an LLM's reply, a spec author's node ids. A control character in it would
// reach the terminal as an escape sequence (moving the cursor, rewriting the title, writing the
// clipboard with OSC 52) or break the layout with a newline, so every string of a payload is
// cleaned before a pane sees it.

// needsCleaning is a cheap test on the JSON payload: control characters can only arrive as
// JSON escapes (\u00XX, \n, \t, \r, \b, \f) or as C1 controls in raw UTF-8 (0xC2 0x80..0x9F).
func needsCleaning(payload []byte) bool {
	if bytes.IndexByte(payload, '\\') >= 0 {
		for i := 0; i+1 < len(payload); i++ {
			if payload[i] != '\\' {
				continue
			}
			switch payload[i+1] {
			case 'n', 'r', 't', 'b', 'f':
				return true
			case 'u':
				if i+5 < len(payload) && payload[i+2] == '0' && payload[i+3] == '0' {
					switch payload[i+4] {
					case '0', '1', '8', '9':
						return true
					case '7':
						if payload[i+5] == 'f' || payload[i+5] == 'F' {
							return true
						}
					}
				}
			}
			i++ // skip the escaped character (an escaped backslash among them)
		}
	}
	for i := 0; i+1 < len(payload); i++ {
		if payload[i] == 0xC2 && payload[i+1] >= 0x80 && payload[i+1] <= 0x9F {
			return true
		}
	}
	return false
}

// cleanText is textsafe.Line: the console and every other human-readable writer clean text the
// same way.
func cleanText(s string) string { return textsafe.Line(s) }

// cleanStrings cleans every string reachable from v (a pointer to a payload): fields, slices
// and pointed-to structs. Raw JSON ([]byte) is left alone: the Debug view cleans it as it
// draws it.
func cleanStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			cleanStrings(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				cleanStrings(f)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			cleanStrings(v.Index(i))
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(cleanText(v.String()))
		}
	}
}
