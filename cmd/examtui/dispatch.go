package main

import (
	"errors"
	"fmt"
	"time"

	lkproto "github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/worker"
)

// dispatchFlags name the exam a dispatch asks for (dispatch, and token --dispatch-spec).
type dispatchFlags struct {
	agentName string
	examiner  string
}

func (d *dispatchFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&d.agentName, "agent-name", defaultAgentName, "the workers' agent name")
	f.StringVar(&d.examiner, "dispatch-examiner", "", "examiner for this exam (auto, offline, llm; default: the worker's)")
}

func (d dispatchFlags) metadata(spec, candidate, candidateID string) (string, error) {
	return worker.Metadata{Spec: spec, Candidate: candidate, CandidateID: candidateID, Options: worker.MetadataOptions{Examiner: d.examiner}}.Encode()
}

func newDispatchCmd() *cobra.Command {
	var (
		creds     livekitCreds
		d         dispatchFlags
		room      string
		spec      string
		candidate string
		candID    string
		identity  string
		wait      time.Duration
		link      linkFlags
		specs     string
	)
	cmd := &cobra.Command{
		Use:   "dispatch --room R --spec NAME [--candidate NAME]",
		Short: "Ask the workers for an exam in a room (LiveKit agent dispatch)",
		Long: `Create an agent dispatch on the LiveKit server: a worker (examtui worker) takes it and its
examiner bot joins the room and waits for the candidate. NAME is a spec in the worker's --specs
directory (or "demo"). The dispatch id goes to stdout once a worker has taken the job.

A worker takes a job only while it has room (--max-exams), is not draining and knows the spec.
While it waits, dispatch makes the dispatch again every 10 s (the server may drop a job no
worker took), so a worker that frees a place or starts meanwhile takes it. When none has taken
it after --wait (a worker needs a few seconds), dispatch withdraws it and
exits with status 1, saying so: no exam is left dispatched that would never start. --wait 0
creates the dispatch and returns at once.

To start the exam when the candidate joins instead, put the dispatch into the candidate's
token: examtui token --role candidate --dispatch-spec NAME.

When a candidate server is configured (--serve-url, $EXAMTUI_SERVE_URL or serve.url in the config
file), dispatch also makes the candidate's one-time join link (as examtui token --link does) and
prints it on stderr: "candidate's join link: https://…/join/<code>". The link opens the page in
the exam's language: --language, else the spec's own, read from --specs (the workers' directory,
when this machine has it) or the built-in demo, else examtui serve's --language.`,
		Example: `  examtui dispatch --room exam-42 --spec oral-b2 --candidate "Ada Lovelace"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			creds.resolve()
			switch {
			case creds.url == "":
				return errors.New("no LiveKit URL: pass --url or set LIVEKIT_URL")
			case creds.key == "" || creds.secret == "":
				return errors.New("no API key/secret: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET or pass --api-key and --api-secret")
			}
			if candID != "" {
				// Refused before anything is dispatched: the worker would refuse the job.
				c, err := rosterCandidate(cmd, candID)
				if err != nil {
					return err
				}
				if candidate == "" {
					candidate = c.Name
				}
			}
			md, err := d.metadata(spec, candidate, candID)
			if err != nil {
				return err
			}
			if wait < 0 {
				return fmt.Errorf("--wait %v: want 0 or more", wait)
			}
			// The link first: a store that cannot take it fails the command before any exam
			// is dispatched that the candidate would have no way into.
			var joinLink string
			if _, err := resolveDataDir(); err != nil { // the config file's serve.url counts
				return err
			}
			if candsrv.ServeURL(link.serveURL) != "" {
				if link.language == "" {
					l, err := worker.SpecLanguage(specs, spec)
					switch {
					case err == nil:
						link.language = l
					case specs != "":
						return fmt.Errorf("--specs: %w", err)
					}
				}
				if joinLink, err = link.create(cmd, candsrv.Invite{Room: room, Identity: identity, Name: candidate, CandidateID: candID}); err != nil {
					return fmt.Errorf("candidate's join link: %w", err)
				}
			}
			client := lksdk.NewAgentDispatchServiceClient(httpURL(creds.url), creds.key, creds.secret)
			req := &lkproto.CreateAgentDispatchRequest{AgentName: d.agentName, Room: room, Metadata: md}
			rooms := lksdk.NewRoomServiceClient(httpURL(creds.url), creds.key, creds.secret)
			id, err := dispatchUntilTaken(cmd.Context(), client, rooms, req, wait)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			taken := "taken by a worker"
			if wait == 0 {
				taken = "not waiting for a worker to take it"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "dispatched %q to room %q (agent %q), %s\n", spec, room, d.agentName, taken)
			if joinLink != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "candidate's join link: %s\n", joinLink)
			}
			return nil
		},
	}
	creds.addFlags(cmd, true)
	d.addFlags(cmd)
	f := cmd.Flags()
	f.StringVar(&room, "room", "", "room name (required)")
	f.StringVar(&spec, "spec", app.DemoSpec, "exam spec name in the workers' --specs directory")
	f.StringVar(&candidate, "candidate", "", "candidate's name, recorded with the session")
	f.StringVar(&candID, "candidate-id", "", "attach the session to this candidate of the store's roster (examtui candidates import); their name unless --candidate")
	f.StringVar(&identity, "candidate-identity", "candidate", "the candidate's identity in the room, for the join link")
	link.addFlags(cmd, false)
	f.StringVar(&specs, "specs", "", "the workers' exam specs directory, when this machine has it: the join link opens the page in the exam's language")
	f.DurationVar(&wait, "wait", defaultDispatchWait, "how long to wait for a worker to take the exam before withdrawing it (0: do not wait)")
	_ = cmd.MarkFlagRequired("room")
	return cmd
}
