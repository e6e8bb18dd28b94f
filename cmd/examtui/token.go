package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/transport/livekit"
)

// livekitCreds are the flags every LiveKit command shares.
type livekitCreds struct {
	url    string
	key    string
	secret string
}

func (c *livekitCreds) addFlags(cmd *cobra.Command, needURL bool) {
	f := cmd.Flags()
	urlHelp := "LiveKit server URL (default $LIVEKIT_URL); printed in the join hint"
	if needURL {
		urlHelp = "LiveKit server URL (default $LIVEKIT_URL)"
	}
	f.StringVar(&c.url, "url", "", urlHelp)
	f.StringVar(&c.key, "api-key", "", "LiveKit API key (default $LIVEKIT_API_KEY)")
	f.StringVar(&c.secret, "api-secret", "", "LiveKit API secret (default $LIVEKIT_API_SECRET)")
}

// resolve fills unset values from the usual environment variables.
func (c *livekitCreds) resolve() {
	if c.url == "" {
		c.url = os.Getenv("LIVEKIT_URL")
	}
	if c.key == "" {
		c.key = os.Getenv("LIVEKIT_API_KEY")
	}
	if c.secret == "" {
		c.secret = os.Getenv("LIVEKIT_API_SECRET")
	}
}

func newTokenCmd() *cobra.Command {
	var (
		creds    livekitCreds
		room     string
		identity string
		role     string
		name     string
		ttl      time.Duration
		dispatch dispatchFlags
		spec     string
		candID   string
		link     linkFlags
	)
	cmd := &cobra.Command{
		Use:   "token --room R --identity ID --role candidate|examiner|bot",
		Short: "Mint a LiveKit join token for an exam room",
		Long: `Mint a LiveKit join token with the least grants the role needs and the examtui.role
attribute the examiner bot trusts:

  candidate  publish microphone and data, subscribe
  examiner   publish data (commands), subscribe; no media
  bot        publish audio and data, subscribe

The JWT goes to stdout (so TOKEN=$(examtui token ...) works); a join hint goes to stderr.
Credentials come from --api-key/--api-secret or LIVEKIT_API_KEY/LIVEKIT_API_SECRET.

With --link (candidates only) no token is minted here: a one-time join link for the candidate's
browser goes to stdout instead, http(s)://HOST:PORT/join/<code> on the candidate server
(examtui serve) at --serve-url, $EXAMTUI_SERVE_URL or the config file's serve.url. The code is
kept (hashed) in the session store, which examtui serve must share; the server mints the token
when the candidate presses Join, and the first browser to use the link keeps it. A new link for
the same candidate and room revokes the earlier ones; --revoke --room R [--identity ID] revokes
them by hand (a lost or stolen link), and the browsers they seated get no new token.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			creds.resolve()
			if link.revoke {
				n, err := revokeLinks(cmd, room, identity)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d join link(s) revoked in room %q\n", n, room)
				return nil
			}
			r, err := livekit.ParseRole(role)
			if err != nil {
				return err
			}
			if candID != "" {
				if r != livekit.RoleCandidate || (!link.on && spec == "") {
					return errors.New("--candidate-id is for a candidate's join link (--link) or dispatch (--dispatch-spec)")
				}
				c, err := rosterCandidate(cmd, candID)
				if err != nil {
					return err
				}
				if name == "" {
					name = c.Name
				}
			}
			if link.on {
				if r != livekit.RoleCandidate {
					return fmt.Errorf("--link is for candidates (--role candidate), not %s", r)
				}
				if spec != "" {
					return errors.New("--link with --dispatch-spec: a join link carries no dispatch; dispatch the exam with examtui dispatch, which prints the link too")
				}
				l, err := link.create(cmd, candsrv.Invite{Room: room, Identity: identity, Name: name, CandidateID: candID})
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), l)
				fmt.Fprintf(cmd.ErrOrStderr(), "one-time join link for candidate %q in room %q: first use within %s, then only from the browser that used it\n",
					identity, room, link.ttl)
				return nil
			}
			if creds.key == "" || creds.secret == "" {
				return errors.New("no API key/secret: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET or pass --api-key and --api-secret")
			}
			opts := []livekit.TokenOption{livekit.WithTTL(ttl)}
			if name != "" {
				opts = append(opts, livekit.WithDisplayName(name))
			}
			if spec != "" {
				md, err := dispatch.metadata(spec, name, candID)
				if err != nil {
					return err
				}
				opts = append(opts, livekit.WithAgentDispatch(dispatch.agentName, md))
			}
			jwt, err := livekit.NewToken(creds.key, creds.secret, room, identity, r, opts...)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), jwt)
			fmt.Fprintln(cmd.ErrOrStderr(), joinHint(creds.url, room, identity, r, ttl))
			return nil
		},
	}
	creds.addFlags(cmd, false)
	f := cmd.Flags()
	f.StringVar(&room, "room", "", "room name (required)")
	f.StringVar(&identity, "identity", "", "participant identity, unique in the room (required)")
	f.StringVar(&role, "role", "", "candidate, examiner or bot (required)")
	f.StringVar(&name, "name", "", "display name (default: the identity)")
	f.DurationVar(&ttl, "ttl", time.Hour, "how long the token admits its holder (rejoins need a valid token)")
	f.StringVar(&spec, "dispatch-spec", "", "put an exam dispatch for this spec into the token: joining the room starts it on a worker (examtui worker); --name is the candidate")
	f.StringVar(&candID, "candidate-id", "", "the candidate of the store's roster (examtui candidates import) the --link or --dispatch-spec is for: the session is attached to them; their name unless --name")
	dispatch.addFlags(cmd)
	link.addFlags(cmd, true)
	_ = cmd.MarkFlagRequired("room")
	// identity and role are required too, except with --revoke (PreRunE).
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		if link.revoke {
			return nil
		}
		var missing []string
		for _, req := range []string{"identity", "role"} {
			if !cmd.Flags().Changed(req) {
				missing = append(missing, strconv.Quote(req))
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("required flag(s) %s not set", strings.Join(missing, ", "))
		}
		return nil
	}
	return cmd
}

// joinHint says how the token is used.
func joinHint(serverURL, room, identity string, role livekit.Role, ttl time.Duration) string {
	hint := fmt.Sprintf("token for %s %q in room %q, valid %s", role, identity, room, ttl)
	if serverURL == "" {
		return hint + " (pass --url or set LIVEKIT_URL for a join hint)"
	}
	switch role {
	case livekit.RoleExaminer:
		return hint + fmt.Sprintf("\nwatch the exam:  examtui watch --url %s --room %s --token <token>", serverURL, room)
	case livekit.RoleCandidate:
		meet := "https://meet.livekit.io/custom?liveKitUrl=" + url.QueryEscape(serverURL) + "&token=<token>"
		return hint + "\njoin from a browser: " + meet +
			"\nor give the candidate a one-time link to examtui serve's page: examtui token --link (docs/candidate.md)"
	default:
		return hint + fmt.Sprintf("\nrun the bot:  examtui run <exam.yaml> --url %s --room %s --token <token>", serverURL, room)
	}
}
