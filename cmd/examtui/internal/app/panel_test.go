package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/marking/panel"
)

func TestPanelFromConfig(t *testing.T) {
	ep := endpoint.Endpoint{Stage: endpoint.StageMark, BaseURL: "http://mark/v1", APIKey: "k", Model: "qwen", Configured: true}
	for _, tc := range []struct {
		name    string
		cfg     config.Panel
		ep      endpoint.Endpoint
		members string
		err     error
	}{
		{"default: three on the mark stage", config.Panel{}, ep, "qwen qwen#2 qwen#3", nil},
		{"listed members, one on its own server", config.Panel{Members: []config.PanelMember{{Name: "llama", Model: "llama3.1"}, {Model: "gpt-4o", BaseURL: "https://api.openai.com/v1", APIKey: "sk"}}}, ep, "llama gpt-4o", nil},
		{"nothing configured", config.Panel{}, endpoint.Endpoint{Stage: endpoint.StageMark}, "", panel.ErrNotConfigured},
		{"a member with no server and no stage", config.Panel{Members: []config.PanelMember{{Model: "a"}, {Model: "b", BaseURL: "http://b/v1"}}}, endpoint.Endpoint{Stage: endpoint.StageMark}, "", panel.ErrNotConfigured},
		{"bad timeout", config.Panel{Timeout: "soon"}, ep, "", panel.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := app.Panel(tc.cfg, tc.ep)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err == nil && strings.Join(p.Members(), " ") != tc.members {
				t.Errorf("members %q, want %q", p.Members(), tc.members)
			}
		})
	}
}
