package tui

import (
	"reflect"

	"github.com/examtui/examtui/internal/textsafe"
)

// Event text reaches the console from places the console does not control: a candidate typing
// in a LiveKit room, an LLM's reply, a spec author's node ids. A control character in it would
// reach the terminal as an escape sequence (moving the cursor, rewriting the title, writing the
// clipboard with OSC 52) or break the layout with a newline, so every string of a payload is
// cleaned before a pane sees it.

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
