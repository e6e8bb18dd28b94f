package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/sessions"
)

// linkFlags are the flags of the commands that give candidates join links (token --link,
// dispatch).
type linkFlags struct {
	on       bool
	revoke   bool
	serveURL string
	ttl      time.Duration
	language string
}

func (l *linkFlags) addFlags(cmd *cobra.Command, withSwitch bool) {
	f := cmd.Flags()
	if withSwitch {
		f.BoolVar(&l.on, "link", false, "print a one-time join link for the candidate's browser (examtui serve) instead of a token")
	}
	if withSwitch {
		f.BoolVar(&l.revoke, "revoke", false, "revoke the candidate's join links in --room (of --identity, or all) and their browsers' seats instead of making anything")
	}
	f.StringVar(&l.serveURL, "serve-url", "", "the candidate server's address in links (default $"+candsrv.EnvServeURL+" or serve.url in the config file)")
	f.DurationVar(&l.ttl, "link-ttl", candsrv.DefaultLinkTTL, "how long a join link can be used for the first time")
	f.StringVar(&l.language, "language", "", "the exam's language, for the candidate page the link opens (a language pack's tag; default: on dispatch the spec's when it can be read, else examtui serve's --language)")
}

// errNoServeURL is the answer for a link asked for with nowhere to point it.
var errNoServeURL = errors.New("no candidate server for the link: pass --serve-url, set " + candsrv.EnvServeURL + " or serve.url in the config file (the address examtui serve is reached at)")

// create stores a join code for inv in the command's session store and returns its link.
func (l linkFlags) create(cmd *cobra.Command, inv candsrv.Invite) (string, error) {
	dataDir, log, closeLog, err := setup() // loads the config file, so serve.url counts
	if err != nil {
		return "", err
	}
	defer closeLog()
	base := candsrv.ServeURL(l.serveURL)
	if base == "" {
		return "", errNoServeURL
	}
	if err := candsrv.CheckBaseURL(base); err != nil {
		return "", err
	}
	st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return "", err
	}
	defer st.Close()
	inv.TTL = l.ttl
	if l.language != "" {
		if _, err := languagePacks().Lookup(l.language); err != nil {
			return "", fmt.Errorf("--language: %w", err)
		}
		inv.Language = l.language
	}
	return candsrv.NewLink(cmd.Context(), st, base, inv, time.Now())
}

// rosterCandidate is the roster entry of candidate id in the command's session store (the one
// its links go to), refusing an id the roster does not hold.
func rosterCandidate(cmd *cobra.Command, id string) (sessions.Candidate, error) {
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return sessions.Candidate{}, err
	}
	defer closeLog()
	st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return sessions.Candidate{}, err
	}
	defer st.Close()
	return app.RosterCandidate(cmd.Context(), st, id)
}

// revokeLinks revokes the join links of room (of identity, or every candidate's for "") in the
// command's session store, and returns how many it revoked.
func revokeLinks(cmd *cobra.Command, room, identity string) (int, error) {
	if room == "" {
		return 0, errors.New("--revoke needs --room")
	}
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return 0, err
	}
	defer closeLog()
	st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return st.RevokeJoinCodes(cmd.Context(), room, identity, time.Now())
}
