package logredact_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/examtui/examtui/internal/logredact"
)

const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJleGFtdHVpLWJvdCIsInZpZGVvIjp7fX0.c2lnbmF0dXJlLXNpZ25hdHVyZQ"

type stringer struct{ s string }

func (s stringer) String() string { return s.s }

func TestHandlerMasksSecrets(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger)
	}{
		{"message", func(l *slog.Logger) { l.Info("joining with token " + jwt) }},
		{"string attr", func(l *slog.Logger) { l.Debug("connect", "url", "wss://lk.example/rtc?access_token="+jwt) }},
		{"bearer header", func(l *slog.Logger) {
			l.Info("request", "header", "Authorization: Bearer sk-proj-abcdefghijklmnopqrstuvwxyz")
		}},
		{"error", func(l *slog.Logger) { l.Warn("failed", "err", errors.New("dial: token "+jwt+" rejected")) }},
		{"stringer", func(l *slog.Logger) { l.Info("cfg", "v", stringer{"key=" + jwt}) }},
		{"group", func(l *slog.Logger) { l.Info("g", slog.Group("req", slog.String("token", jwt))) }},
		{"with attrs", func(l *slog.Logger) { l.With("token", jwt).Info("joined") }},
		{"with group", func(l *slog.Logger) { l.WithGroup("sdk").Info("joined", "token", jwt) }},
		{"map", func(l *slog.Logger) { l.Info("m", "headers", map[string]string{"Authorization": "Bearer " + jwt}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := slog.New(logredact.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
			tt.log(l)
			out := buf.String()
			if out == "" {
				t.Fatal("nothing logged")
			}
			for _, secret := range []string{jwt, "sk-proj-abcdefghijklmnopqrstuvwxyz", "c2lnbmF0dXJl"} {
				if strings.Contains(out, secret) {
					t.Errorf("log holds a secret: %s", out)
				}
			}
			if !strings.Contains(out, "[REDACTED]") {
				t.Errorf("no redaction marker: %s", out)
			}
		})
	}
	var buf bytes.Buffer
	slog.New(logredact.New(slog.NewTextHandler(&buf, nil))).Info("plain", "n", 3, "s", "nothing secret")
	if !strings.Contains(buf.String(), `s="nothing secret"`) || !strings.Contains(buf.String(), "n=3") {
		t.Errorf("clean record changed: %s", buf.String())
	}
}

// TestHandlerPseudonymisesPeople: attributes naming a person never carry the name, wherever
// they are set; one person keeps one pseudonym through the log, two people have two.
func TestHandlerPseudonymisesPeople(t *testing.T) {
	const name = "Zelda Quokkaberg"
	var buf bytes.Buffer
	l := slog.New(logredact.New(slog.NewTextHandler(&buf, nil)))
	l.Info("candidate arrived", "identity", name)
	l.With("candidate", name).Info("exam started")
	l.Info("command", slog.Group("cmd", slog.String("sender", name)))
	l.Info("join admitted", "displayName", name, "room", "exam-1")
	l.Info("other", "identity", "Ivo Brannigan")
	out := buf.String()
	if strings.Contains(out, "Zelda") || strings.Contains(out, "Quokkaberg") || strings.Contains(out, "Brannigan") {
		t.Fatalf("a name reached the log:\n%s", out)
	}
	p := logredact.Pseudonym(name)
	if strings.Count(out, p) != 4 || !strings.Contains(out, "room=exam-1") || !strings.Contains(out, logredact.Pseudonym("Ivo Brannigan")) ||
		p == logredact.Pseudonym("Ivo Brannigan") {
		t.Fatalf("pseudonym %s:\n%s", p, out)
	}
}
