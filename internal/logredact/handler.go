// Package logredact is the one slog handler wrapper examtui installs around every log it
// writes: it masks bearer tokens, JWTs (LiveKit join tokens) and API keys wherever they appear
// in a record (the message, string attributes, errors, anything printed), because libraries
// such as the LiveKit SDK may log a join URL or token at debug level. Logs are part of the exam
// record too: attributes that name a person (identity, candidate, sender, name...) are
// replaced by a pseudonym, so no log line keeps a candidate's name (docs/records.md).
package logredact

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"

	"github.com/examtui/examtui/internal/textsafe"
)

// Handler masks secrets in every record before the wrapped handler sees it.
type Handler struct {
	next slog.Handler
}

// New wraps next. Wrapping twice is harmless.
func New(next slog.Handler) *Handler {
	if h, ok := next.(*Handler); ok {
		return h
	}
	return &Handler{next: next}
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, textsafe.MaskSecrets(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = redactAttr(a)
	}
	return &Handler{next: h.next.WithAttrs(clean)}
}

// WithGroup implements slog.Handler.
func (h *Handler) WithGroup(name string) slog.Handler { return &Handler{next: h.next.WithGroup(name)} }

// personKeys are the attribute keys whose values name a person (a participant's identity may
// be the candidate's name): their values are logged as Pseudonym.
var personKeys = map[string]bool{"identity": true, "candidate": true, "sender": true, "name": true,
	"displayName": true, "display_name": true, "participant": true}

// pseudonymKey is this process's key for pseudonyms: one person has one pseudonym through one
// run's log (lines can be followed), and a name cannot be recovered by hashing a list of names.
var pseudonymKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

// Pseudonym is how the log names a person: "person-" and 8 hex digits of a keyed hash.
func Pseudonym(name string) string {
	if name == "" {
		return ""
	}
	m := hmac.New(sha256.New, pseudonymKey)
	m.Write([]byte(name))
	return "person-" + hex.EncodeToString(m.Sum(nil)[:4])
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if personKeys[a.Key] && v.Kind() != slog.KindGroup {
		return slog.String(a.Key, Pseudonym(fmt.Sprint(v.Any())))
	}
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, textsafe.MaskSecrets(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, ga := range g {
			clean[i] = redactAttr(ga)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		// Errors, Stringers, structs and maps print as text; if the text holds a secret the
		// value is replaced by its masked text.
		s := fmt.Sprint(v.Any())
		if m := textsafe.MaskSecrets(s); m != s {
			return slog.String(a.Key, m)
		}
		return slog.Attr{Key: a.Key, Value: v}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
