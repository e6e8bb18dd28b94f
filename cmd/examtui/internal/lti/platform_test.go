package lti_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/lti"
)

// TestCoursePageOrigins: the origins that may frame the tool are the issuer's, the
// authorization URL's and frameOrigins, each once; a frameOrigins entry that is not exactly an
// origin (it goes into a CSP header as written) is refused at registration.
func TestCoursePageOrigins(t *testing.T) {
	base := lti.Platform{Issuer: "https://moodle.example.edu", ClientID: "c", DeploymentIDs: []string{"1"},
		AuthURL: "https://moodle.example.edu/mod/lti/auth.php", TokenURL: "https://moodle.example.edu/mod/lti/token.php",
		JWKSURL: "https://moodle.example.edu/mod/lti/certs.php"}
	for _, tc := range []struct {
		name   string
		issuer string
		frame  []string
		want   []string
		bad    bool
	}{
		{name: "moodle", want: []string{"https://moodle.example.edu"}},
		{name: "issuer not a URL", issuer: "moodle-test", want: []string{"https://moodle.example.edu"}},
		{name: "another host and a port", frame: []string{"https://school.instructure.com", "http://127.0.0.1:8080"},
			want: []string{"https://moodle.example.edu", "https://school.instructure.com", "http://127.0.0.1:8080"}},
		{name: "a directive smuggled in", frame: []string{"https://a.edu; script-src *"}, bad: true},
		{name: "a path", frame: []string{"https://a.edu/course"}, bad: true},
		{name: "a trailing slash", frame: []string{"https://a.edu/"}, bad: true},
		{name: "a wildcard", frame: []string{"*"}, bad: true},
		{name: "not http", frame: []string{"javascript:alert(1)"}, bad: true},
		{name: "a user", frame: []string{"https://u@a.edu"}, bad: true},
	} {
		p := base
		if tc.issuer != "" {
			p.Issuer = tc.issuer
		}
		p.FrameOrigins = tc.frame
		err := p.Validate()
		if tc.bad {
			if !errors.Is(err, lti.ErrInvalidConfig) {
				t.Errorf("%s: Validate %v, want %v", tc.name, err, lti.ErrInvalidConfig)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if got := p.CoursePageOrigins(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
