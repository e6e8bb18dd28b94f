// Package endpointtest is the test harness for code that resolves provider endpoints: it gives
// a test exactly the endpoint settings it names. Tests import it; the product does not.
package endpointtest

import (
	"os"
	"testing"

	"github.com/examtui/examtui/internal/endpoint"
)

// Isolate clears every endpoint variable, shared and per stage (restored when the test ends),
// then sets env: the test sees only the endpoints it names, and a config file's values can
// fill the unset ones.
func Isolate(t testing.TB, env map[string]string) {
	t.Helper()
	vars := []string{endpoint.EnvSharedBaseURL, endpoint.EnvSharedAPIKey, endpoint.EnvSharedModel}
	for _, st := range endpoint.Stages {
		vars = append(vars, st.EnvBaseURL(), st.EnvAPIKey(), st.EnvModel(), st.EnvTimeout())
	}
	for _, k := range vars {
		t.Setenv(k, "")
		_ = os.Unsetenv(k)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}
