package config

import (
	"strings"
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"", 0, ""},
		{"30d", 30 * day, ""},
		{" 52w ", 52 * 7 * day, ""},
		{"6y", 6 * 365 * day, ""},
		{"720h", 720 * time.Hour, ""},
		{"0d", 0, "more than zero"},
		{"-3d", 0, "more than zero"},
		{"-1h", 0, "more than zero"},
		{"1.5d", 0, "whole number"},
		{"d", 0, "whole number"},
		{"thirty days", 0, "want 30d"},
		{"9999999999999y", 0, "too long"},
	} {
		got, err := ParseAge(c.in)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseAge(%q) = %v, %v; want %v, error with %q", c.in, got, err, c.want, c.err)
		}
	}
	if _, err := (Retention{Events: "1y", Logs: "soon"}).Ages(); err == nil || !strings.Contains(err.Error(), "records.retention.logs") {
		t.Errorf("a bad field is not named: %v", err)
	}
}

// FuzzParseAge: any text either is refused or gives an age above zero (a retention of zero or
// less would purge everything at once); "" alone means no limit.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"", "30d", "6y", "720h", "0d", "-1w", "9999999999999y", "1e9h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseAge(s)
		if err == nil && d <= 0 && strings.TrimSpace(s) != "" {
			t.Fatalf("ParseAge(%q) = %v without an error", s, d)
		}
	})
}
