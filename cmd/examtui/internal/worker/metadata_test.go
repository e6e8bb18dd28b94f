package worker

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMetadata(t *testing.T) {
	cases := []struct {
		raw     string
		want    Metadata
		wantErr string
	}{
		{`{"spec":"demo"}`, Metadata{Spec: "demo"}, ""},
		{`{"spec":"oral-b2.yaml","candidate":"Ada Lovelace","options":{"examiner":"offline"}}`,
			Metadata{Spec: "oral-b2.yaml", Candidate: "Ada Lovelace", Options: MetadataOptions{Examiner: "offline"}}, ""},
		{``, Metadata{}, "empty"},
		{`not json`, Metadata{}, "bad dispatch metadata"},
		{`{"spec":"../etc/passwd"}`, Metadata{}, "not a plain name"},
		{`{"spec":"/etc/passwd"}`, Metadata{}, "not a plain name"},
		{`{"spec":"a/b"}`, Metadata{}, "not a plain name"},
		{`{"spec":"a..b"}`, Metadata{}, "not a plain name"},
		{`{"spec":""}`, Metadata{}, "no spec named"},
		{`{"spec":"demo","path":"/x"}`, Metadata{}, "unknown field"},
		{`{"spec":"demo"} {"spec":"other"}`, Metadata{}, "trailing data"},
		{`{"spec":"demo","options":{"examiner":"human"}}`, Metadata{}, "examiner \"human\""},
		{`{"spec":"demo","candidate":"` + strings.Repeat("x", 121) + `"}`, Metadata{}, "candidate name"},
		{strings.Repeat(" ", 5000), Metadata{}, "at most 4096"},
		{`{"spec":"demo","candidate":"Ada","candidateId":"lti:ab12cd34:learner-7"}`,
			Metadata{Spec: "demo", Candidate: "Ada", CandidateID: "lti:ab12cd34:learner-7"}, ""},
		{`{"spec":"demo","candidateId":"a\u001bb"}`, Metadata{}, "candidate id"},
	}
	for _, tc := range cases {
		t.Run(tc.raw[:min(len(tc.raw), 30)], func(t *testing.T) {
			got, err := ParseMetadata(tc.raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrBadMetadata) {
					t.Fatalf("err = %v, want ErrBadMetadata containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
			enc, err := got.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if back, err := ParseMetadata(enc); err != nil || back != got {
				t.Fatalf("round trip: %+v, %v", back, err)
			}
		})
	}
}

// FuzzParseMetadata: whatever a dispatcher sends, parsing never panics, and what it accepts
// names a plain spec that resolves inside the spec directory or not at all.
func FuzzParseMetadata(f *testing.F) {
	for _, s := range []string{`{"spec":"demo"}`, `{"spec":"../x"}`, `{"spec":"a","candidate":"\u0000"}`, `{}`, `[]`, `{"spec":"x.yaml","options":{}}`} {
		f.Add(s)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "exam.yaml"), []byte("x"), 0o600); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		m, err := ParseMetadata(raw)
		if err != nil {
			return
		}
		if strings.ContainsAny(m.Spec, `/\`) || strings.Contains(m.Spec, "..") || !utf8.ValidString(m.Candidate) {
			t.Fatalf("accepted %+v", m)
		}
		if p, err := resolveSpec(dir, m.Spec); err == nil && p != "demo" && filepath.Dir(p) != dir {
			t.Fatalf("spec %q resolved outside the directory: %s", m.Spec, p)
		}
	})
}

func TestResolveSpec(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"oral.yaml", "plain", "j.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		dir, name, want string
		err             error
	}{
		{dir, "oral", filepath.Join(dir, "oral.yaml"), nil},
		{dir, "oral.yaml", filepath.Join(dir, "oral.yaml"), nil},
		{dir, "plain", filepath.Join(dir, "plain"), nil},
		{dir, "j", filepath.Join(dir, "j.json"), nil},
		{dir, "demo", "demo", nil},
		{"", "demo", "demo", nil},
		{dir, "missing", "", ErrUnknownSpec},
		{dir, "sub", "", ErrUnknownSpec},
		{"", "oral", "", ErrUnknownSpec},
		{dir, "../oral", "", ErrBadMetadata},
	}
	for _, tc := range cases {
		got, err := resolveSpec(tc.dir, tc.name)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: err = %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestSessionKey(t *testing.T) {
	a, b := SessionKey("room", "RM_1"), SessionKey("room", "RM_2")
	if a == b || a != SessionKey("room", "RM_1") || !strings.HasPrefix(a, "lk-") || len(a) != 19 {
		t.Errorf("keys %q %q", a, b)
	}
	if SessionKey("ab", "c") == SessionKey("a", "bc") {
		t.Error("room and sid run together")
	}
}
