package runtime

import "fmt"

// The fixed-value words of the event stream (speaker, input source, decision action, recovery
// kind, admin mode and status, error code...) are typed enums defined once in this package, one
// file per family (enum_*.go). Each is a string type whose text is exactly what the JSON carries,
// so encoding one is byte-identical to the plain strings it replaced, and:
//   - the zero value ("") means unknown or not given;
//   - String() returns the wire text;
//   - Valid() says whether the value is one this version defines;
//   - ParseX(s) returns the value, or the zero value and an error wrapping ErrUnknownValue.
//
// Decoding JSON never rejects or rewrites a value: a newer writer's value this version does not
// know (a new recovery kind, say) decodes as that text, is not Valid, and is re-encoded
// unchanged, so reading and re-writing a session never loses what a newer writer recorded.
// Code that must act on a value compares it with the constants; code that only shows it prints
// the text.

// parseEnum returns the member of known spelled s, or the zero value and ErrUnknownValue.
func parseEnum[T ~string](what, s string, known []T) (T, error) {
	for _, k := range known {
		if string(k) == s {
			return k, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("%w: %s %q", ErrUnknownValue, what, s)
}

// isKnown reports whether v is a member of known (the zero value never is).
func isKnown[T ~string](v T, known []T) bool {
	for _, k := range known {
		if k == v {
			return true
		}
	}
	return false
}
