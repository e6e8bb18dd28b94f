package panel

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/examtui/examtui/internal/httpbound"
	"github.com/examtui/examtui/runtime/llm"
)

// Defaults.
const (
	DefaultTimeout    = 60 * time.Second
	DefaultFlagSpread = 1
	// DefaultMembers is how many members a panel has when only the mark stage is configured:
	// three calls to the same model, which still mark independently (no member sees another's
	// first round).
	DefaultMembers = 3
)

// Member is one marker: a model on a server.
type Member struct {
	Name    string // shown in reports; empty: the model
	Model   string
	BaseURL string
	APIKey  string
}

// Panel runs the members. Build it with New; it is safe for concurrent Runs.
type Panel struct {
	members    []member
	timeout    time.Duration
	flagSpread int
	log        *slog.Logger
	hc         *http.Client // nil: a fresh client; bounded by New either way
}

type member struct {
	Member
	client *openai.Client
}

// Option configures a Panel.
type Option func(*Panel) error

// WithTimeout bounds each member's call (each round's).
func WithTimeout(d time.Duration) Option {
	return func(p *Panel) error {
		if d <= 0 {
			return fmt.Errorf("%w: timeout %v", ErrInvalid, d)
		}
		p.timeout = d
		return nil
	}
}

// WithFlagSpread sets how many levels apart the members' final levels may be before the
// criterion is flagged for a human (1: any disagreement flags).
func WithFlagSpread(n int) Option {
	return func(p *Panel) error {
		if n < 1 {
			return fmt.Errorf("%w: flag spread %d, want 1 or more", ErrInvalid, n)
		}
		p.flagSpread = n
		return nil
	}
}

// WithHTTPClient sets the client every member's requests go through.
func WithHTTPClient(hc *http.Client) Option {
	return func(p *Panel) error {
		if hc == nil {
			return fmt.Errorf("%w: nil HTTP client", ErrInvalid)
		}
		p.hc = hc
		return nil
	}
}

// WithLogger logs each member's failures and rejections.
func WithLogger(l *slog.Logger) Option {
	return func(p *Panel) error {
		if l == nil {
			return fmt.Errorf("%w: nil logger", ErrInvalid)
		}
		p.log = l
		return nil
	}
}

// New builds a panel of members (at least two: agreement needs a second opinion).
func New(members []Member, opts ...Option) (*Panel, error) {
	if len(members) < 2 {
		return nil, fmt.Errorf("%w: %d members, want 2 or more", ErrInvalid, len(members))
	}
	p := &Panel{timeout: DefaultTimeout, flagSpread: DefaultFlagSpread, log: slog.New(slog.DiscardHandler)}
	names := map[string]int{}
	for i, m := range members {
		if strings.TrimSpace(m.Model) == "" {
			return nil, fmt.Errorf("%w: member %d has no model", ErrInvalid, i+1)
		}
		if m.BaseURL == "" && m.APIKey == "" {
			return nil, fmt.Errorf("%w: member %d (%s) has neither a server nor a key", ErrInvalid, i+1, m.Model)
		}
		if m.Name == "" {
			m.Name = m.Model
		}
		// Same model twice (the default panel): number them so reports tell them apart.
		if names[m.Name]++; names[m.Name] > 1 {
			m.Name = fmt.Sprintf("%s#%d", m.Name, names[m.Name])
		}
		p.members = append(p.members, member{Member: m})
	}
	for _, o := range opts {
		if err := o(p); err != nil {
			return nil, err
		}
	}
	// Every member's reply is bounded: the panel's size cap, and the member's timeout covering
	// the whole body, so an endless or trickling reply fails that member instead of the process.
	hc := httpbound.MustClient(httpbound.KindPanel, p.hc, p.timeout)
	hc.Transport = llm.GuardUsage(hc.Transport) // the usage a member's server reports, checked
	for i := range p.members {
		p.members[i].client = newClient(p.members[i].Member, hc)
	}
	return p, nil
}

// Members are the members' names, in order.
func (p *Panel) Members() []string {
	out := make([]string, len(p.members))
	for i, m := range p.members {
		out[i] = m.Name
	}
	return out
}

func newClient(m Member, hc *http.Client) *openai.Client {
	cfg := openai.DefaultConfig(m.APIKey)
	if m.BaseURL != "" {
		cfg.BaseURL = strings.TrimRight(m.BaseURL, "/")
	}
	if hc != nil {
		cfg.HTTPClient = hc
	}
	return openai.NewClientWithConfig(cfg)
}
