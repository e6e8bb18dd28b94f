package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

func TestAddLTIPlatform(t *testing.T) {
	p1 := LTIPlatform{Issuer: "https://moodle.example.edu", ClientID: "abc", DeploymentIDs: []string{"1"},
		AuthURL: "https://moodle.example.edu/mod/lti/auth.php", TokenURL: "https://moodle.example.edu/mod/lti/token.php",
		JWKSURL: "https://moodle.example.edu/mod/lti/certs.php"}
	p2 := p1
	p2.ClientID = "def"
	for _, tc := range []struct{ name, start string }{
		{"no file", ""},
		{"other settings and a comment", "# my settings\nstore: postgres://x\nserve:\n  url: https://exam.example.org # public\n"},
		{"an lti section without platforms", "lti:\n  keysDir: /srv/keys\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if tc.start != "" {
				if err := os.WriteFile(path, []byte(tc.start), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []LTIPlatform{p1, p2} {
				if err := AddLTIPlatform(path, p); err != nil {
					t.Fatal(err)
				}
			}
			if err := AddLTIPlatform(path, p1); !errors.Is(err, ErrPlatformRegistered) {
				t.Fatalf("registered twice: %v", err)
			}
			b, _ := os.ReadFile(path)
			var f File
			if err := yaml.UnmarshalWithOptions(b, &f, yaml.Strict()); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if len(f.LTI.Platforms) != 2 || f.LTI.Platforms[1].ClientID != "def" || f.LTI.Platforms[0].JWKSURL != p1.JWKSURL {
				t.Fatalf("platforms %+v\n%s", f.LTI.Platforms, b)
			}
			if strings.Contains(tc.start, "# my settings") && (!strings.Contains(string(b), "# my settings") || f.Store != "postgres://x") {
				t.Fatalf("the rest of the file was not kept:\n%s", b)
			}
			if strings.Contains(tc.start, "keysDir") && f.LTI.KeysDir != "/srv/keys" {
				t.Fatalf("keysDir lost:\n%s", b)
			}
		})
	}
}
