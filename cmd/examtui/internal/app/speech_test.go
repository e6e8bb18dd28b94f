package app_test

import (
	"testing"
	"time"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
)

func TestEndpointConfig(t *testing.T) {
	ep, err := app.EndpointConfig(300*time.Millisecond, time.Second)
	if err != nil || ep.VAD.Hangover >= ep.MinEndpointingDelay {
		t.Errorf("a short min delay must shorten the hangover: %+v %v", ep, err)
	}
	if _, err := app.EndpointConfig(2*time.Second, time.Second); err == nil {
		t.Error("min delay above max delay accepted")
	}
}
