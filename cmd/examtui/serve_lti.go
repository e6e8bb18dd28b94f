package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"

	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/cmd/examtui/internal/worker"
	"github.com/examtui/examtui/internal/config"
	"github.com/examtui/examtui/sessions"
)

// ltiPlatforms converts the config file's platforms.
func ltiPlatforms(c config.LTI) []lti.Platform {
	out := make([]lti.Platform, len(c.Platforms))
	for i, p := range c.Platforms {
		out[i] = lti.Platform(p)
	}
	return out
}

// ltiKeys opens the tool's key set: lti.keysDir, else lti-keys in the data directory.
func ltiKeys(c config.LTI, dataDir string) (*lti.KeySet, error) {
	dir := c.KeysDir
	if dir == "" {
		dir = filepath.Join(dataDir, "lti-keys")
	}
	return lti.OpenKeys(dir)
}

// ltiWiring is what the LTI tool adds to the candidate server: its routes, the course pages
// that may frame a launched room's join page, and a line saying where a platform
// administrator points the LMS.
type ltiWiring struct {
	mount        func(*http.ServeMux)
	frameOrigins func(ctx context.Context, room string) []string
	note         string
}

// ltiMount builds the LTI tool when the config file registers platforms (none: a zero wiring).
func ltiMount(o serveOptions, st *sessions.Store, dataDir, base string, log *slog.Logger) (ltiWiring, error) {
	c := globals.config.LTI
	if len(c.Platforms) == 0 {
		return ltiWiring{}, nil
	}
	reg, err := lti.NewRegistry(ltiPlatforms(c))
	if err != nil {
		return ltiWiring{}, fmt.Errorf("config lti.platforms: %w", err)
	}
	keys, err := ltiKeys(c, dataDir)
	if err != nil {
		return ltiWiring{}, err
	}
	agent := o.agentName
	if c.AgentName != "" {
		agent = c.AgentName
	}
	catalog := candsrv.SpecCatalog{Dir: o.specs}
	launcher := &candsrv.LTILauncher{Store: st, Catalog: catalog, Logger: log, Now: time.Now, Services: lti.NewServices(keys, nil, nil), Origin: base,
		Dispatcher: candsrv.AgentDispatcher{AgentName: agent,
			Client: lksdk.NewAgentDispatchServiceClient(httpURL(o.creds.url), o.creds.key, o.creds.secret),
			Rooms:  lksdk.NewRoomServiceClient(httpURL(o.creds.url), o.creds.key, o.creds.secret)},
		Metadata: func(exam, name, candidateID string) (string, error) {
			return worker.Metadata{Spec: exam, Candidate: name, CandidateID: candidateID}.Encode()
		}}
	tool, err := lti.New(lti.Config{Platforms: reg, Keys: keys, BaseURL: base, Launcher: launcher, Catalog: catalog, Logger: log})
	if err != nil {
		return ltiWiring{}, err
	}
	note := fmt.Sprintf("LTI 1.3 tool for %d platform(s): login %s, launch and redirect %s, keys %s", len(c.Platforms),
		tool.LoginURL(), tool.LaunchURL(), tool.JWKSURL())
	mount := func(mux *http.ServeMux) {
		tool.Register(mux)
		mux.HandleFunc("POST "+candsrv.PathTie, launcher.Tie)
	}
	return ltiWiring{mount: mount, frameOrigins: candsrv.FrameOrigins(st, reg, log), note: note}, nil
}
