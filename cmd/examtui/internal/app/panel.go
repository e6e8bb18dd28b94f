package app

import (
	"fmt"
	"time"

	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/internal/endpoint"
	"github.com/examtui/examtui/marking/panel"
)

// Panel builds the panel the config file's panel: section describes, on the mark stage's
// endpoint ep (endpoint.Resolve(endpoint.StageMark)). With no members listed the panel is
// DefaultMembers members on ep's model. A member with its own baseURL uses only its own apiKey
// (the stages' key rule); one without uses ep's server, and ep's key unless it names its own.
func Panel(c config.Panel, ep endpoint.Endpoint, opts ...panel.Option) (*panel.Panel, error) {
	var members []panel.Member
	for _, m := range c.Members {
		switch {
		case m.BaseURL != "":
		case ep.Configured:
			m.BaseURL = ep.BaseURL
			if m.APIKey == "" {
				m.APIKey = ep.APIKey
			}
		case m.APIKey == "":
			return nil, fmt.Errorf("%w: panel member %q has no baseURL and the mark stage is not configured (set EXAMTUI_MARK_BASE_URL or OPENAI_BASE_URL)", panel.ErrNotConfigured, m.Name)
		}
		if m.Model == "" {
			m.Model = ep.Model
		}
		members = append(members, panel.Member(m))
	}
	if len(members) == 0 {
		if !ep.Configured {
			return nil, fmt.Errorf("%w: set EXAMTUI_MARK_BASE_URL or OPENAI_BASE_URL, or list panel members in the config file", panel.ErrNotConfigured)
		}
		for range panel.DefaultMembers {
			members = append(members, panel.Member{Model: ep.Model, BaseURL: ep.BaseURL, APIKey: ep.APIKey})
		}
	}
	var pre []panel.Option
	switch {
	case c.Timeout != "":
		d, err := time.ParseDuration(c.Timeout)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%w: panel.timeout %q: want a positive duration such as 60s", panel.ErrInvalid, c.Timeout)
		}
		pre = append(pre, panel.WithTimeout(d))
	case ep.Timeout > 0:
		pre = append(pre, panel.WithTimeout(ep.Timeout))
	}
	if c.FlagSpread != 0 {
		pre = append(pre, panel.WithFlagSpread(c.FlagSpread))
	}
	return panel.New(members, append(pre, opts...)...)
}
