package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
)

// LTI is the config file's lti section: the LMS platforms examtui trusts as an LTI 1.3 tool
// (docs/lms.md) and where the tool keeps its signing keys.
type LTI struct {
	Platforms []LTIPlatform `yaml:"platforms"`
	// KeysDir holds the tool's private keys (PEM, 0600); empty: lti-keys in the data directory.
	// Keep it out of the session store and out of backups the markers can read.
	KeysDir string `yaml:"keysDir"`
	// AgentName is the workers' agent name a learner's launch dispatches the exam to (default
	// "examtui", as examtui worker registers).
	AgentName string `yaml:"agentName"`
}

// LTIPlatform is one registered platform (the fields examtui lti register takes).
type LTIPlatform struct {
	Issuer        string   `yaml:"issuer"`
	ClientID      string   `yaml:"clientId"`
	DeploymentIDs []string `yaml:"deploymentIds"`
	AuthURL       string   `yaml:"authUrl"`
	TokenURL      string   `yaml:"tokenUrl"`
	JWKSURL       string   `yaml:"jwksUrl"`
	// FrameOrigins are more origins whose pages show the tool in a frame, besides the issuer's
	// and the authorization URL's (a Canvas Cloud school's own host).
	FrameOrigins []string `yaml:"frameOrigins,omitempty"`
}

// ErrPlatformRegistered is a platform registered already with the same issuer and client id.
var ErrPlatformRegistered = errors.New("platform already registered")

// AddLTIPlatform appends p to lti.platforms of the config file at path, keeping the rest of
// the file (comments included) as it is. A missing file is created.
func AddLTIPlatform(path string, p LTIPlatform) error {
	src, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	var f File
	if len(bytes.TrimSpace(src)) > 0 {
		if err := yaml.UnmarshalWithOptions(src, &f, yaml.Strict()); err != nil {
			return fmt.Errorf("config %s: %s", path, yaml.FormatError(err, false, true))
		}
	}
	if slices.ContainsFunc(f.LTI.Platforms, func(q LTIPlatform) bool { return q.Issuer == p.Issuer && q.ClientID == p.ClientID }) {
		return fmt.Errorf("%w: issuer %s, client %s (edit %s to change it)", ErrPlatformRegistered, p.Issuer, p.ClientID, path)
	}
	item, err := yaml.Marshal([]LTIPlatform{p})
	if err != nil {
		return err
	}
	var out []byte
	switch {
	case len(f.LTI.Platforms) > 0 || hasKey(src, "$.lti"):
		file, err := parser.ParseBytes(src, parser.ParseComments)
		if err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
		at, add := "$.lti", append([]byte("platforms:\n"), indent(item)...)
		if len(f.LTI.Platforms) > 0 {
			at, add = "$.lti.platforms", item
		}
		yp, err := yaml.PathString(at)
		if err != nil {
			return err
		}
		if err := yp.MergeFromReader(file, bytes.NewReader(add)); err != nil {
			return fmt.Errorf("config %s: add to %s: %w", path, at, err)
		}
		out = []byte(file.String())
	default:
		out = append(bytes.TrimRight(src, "\n"), '\n')
		if len(bytes.TrimSpace(src)) == 0 {
			out = nil
		}
		out = append(out, "lti:\n  platforms:\n"...)
		out = append(out, indent(indent(item))...)
	}
	var check File
	if err := yaml.UnmarshalWithOptions(out, &check, yaml.Strict()); err != nil || len(check.LTI.Platforms) != len(f.LTI.Platforms)+1 {
		return fmt.Errorf("config %s: the file could not be extended safely (%v); add the platform under lti.platforms by hand", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return os.WriteFile(path, out, 0o600)
}

func hasKey(src []byte, at string) bool {
	yp, err := yaml.PathString(at)
	if err != nil {
		return false
	}
	_, err = yp.ReadNode(bytes.NewReader(src))
	return err == nil
}

func indent(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	var out []byte
	for _, l := range lines {
		if len(l) > 0 {
			out = append(out, "  "...)
			out = append(out, l...)
		}
	}
	return out
}
