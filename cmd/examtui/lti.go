package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/lti"
	"github.com/examtui/examtui/internal/config"
)

func newLTICmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lti",
		Short: "examtui as an LTI 1.3 tool in an LMS: register a platform, read a course's roster",
		Long: `examtui serve is an LTI 1.3 Advantage tool for every platform in the config file's
lti.platforms (docs/lms.md): learners launch their exam from the course, instructors place exams
with Deep Linking, and "examtui marks publish" sends locked marks to the gradebook.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newLTIRegisterCmd(), newLTIRosterCmd(), newLTIKeysCmd())
	return cmd
}

func newLTIRegisterCmd() *cobra.Command {
	var (
		p         config.LTIPlatform
		publicURL string
	)
	cmd := &cobra.Command{
		Use:   "register --issuer URL --client-id ID --deployment-ids ID[,ID] --auth-url URL --token-url URL --jwks-url URL",
		Short: "Register an LMS platform and print what to paste into it",
		Long: `Add a platform to lti.platforms in the config file (the rest of the file is kept), make the
tool's signing key when there is none, and print the URLs the LMS administrator pastes into the
tool's registration: the login initiation URL, the redirect (launch) URL, the deep linking URL
and the public keyset URL. --public-url is the address the candidate server is reached at
(default: serve.url from the config file, or $EXAMTUI_SERVE_URL).`,
		Example: `  examtui lti register --issuer https://moodle.example.edu --client-id Kx7v... --deployment-ids 3 \
    --auth-url https://moodle.example.edu/mod/lti/auth.php --token-url https://moodle.example.edu/mod/lti/token.php \
    --jwks-url https://moodle.example.edu/mod/lti/certs.php --public-url https://exam.example.edu`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dataDir, err := resolveDataDir()
			if err != nil {
				return err
			}
			if err := lti.Platform(p).Validate(); err != nil {
				return err
			}
			base := strings.TrimRight(candsrv.ServeURL(publicURL), "/")
			if base == "" {
				return errors.New("no public URL: pass --public-url (the address candidates and the LMS reach examtui serve at) or set serve.url in the config file")
			}
			if err := candsrv.CheckBaseURL(base); err != nil {
				return fmt.Errorf("--public-url: %w", err)
			}
			path := config.Path()
			if err := config.AddLTIPlatform(path, p); err != nil {
				return err
			}
			if _, err := ltiKeys(globals.config.LTI, dataDir); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "registered %s (client %s, deployments %s) in %s\n\n", p.Issuer, p.ClientID, strings.Join(p.DeploymentIDs, ", "), path)
			fmt.Fprintf(w, "paste into the LMS's tool registration:\n")
			fmt.Fprintf(w, "  initiate login URL:           %s%s\n", base, lti.PathLogin)
			fmt.Fprintf(w, "  redirect URI / tool URL:      %s%s\n", base, lti.PathLaunch)
			fmt.Fprintf(w, "  deep linking (content) URL:   %s%s\n", base, lti.PathLaunch)
			fmt.Fprintf(w, "  public keyset (JWKS) URL:     %s%s\n", base, lti.PathJWKS)
			fmt.Fprintf(w, "  services: Names and Role Provisioning; Assignment and Grade Services (scores)\n")
			fmt.Fprintf(w, "\nthen restart examtui serve (it reads lti.platforms when it starts)\n")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Issuer, "issuer", "", "the platform's issuer (iss), as it signs launches")
	f.StringVar(&p.ClientID, "client-id", "", "the client id the platform gave examtui")
	f.StringSliceVar(&p.DeploymentIDs, "deployment-ids", nil, "the deployment ids allowed (comma-separated)")
	f.StringVar(&p.AuthURL, "auth-url", "", "the platform's OIDC authorization URL")
	f.StringVar(&p.TokenURL, "token-url", "", "the platform's OAuth 2 token URL (for grades and rosters)")
	f.StringVar(&p.JWKSURL, "jwks-url", "", "the platform's public keyset URL")
	f.StringSliceVar(&p.FrameOrigins, "frame-origins", nil, "more origins whose course pages show the tool in a frame, besides the issuer's and the auth URL's (Canvas Cloud: https://SCHOOL.instructure.com)")
	f.StringVar(&publicURL, "public-url", "", "the address examtui serve is reached at (default serve.url)")
	return cmd
}

func newLTIRosterCmd() *cobra.Command {
	var course string
	cmd := &cobra.Command{
		Use:   "roster --course CONTEXT_ID",
		Short: "Bring a course's learners from the LMS into the candidate roster (Names and Role Provisioning)",
		Long: `Ask the platform for the members of a course a learner or instructor has launched from, and
put its learners into the store's candidate roster (as "examtui candidates import" does), with
candidate id lti:<platform>:<LMS user id>, name, email and the LMS's ids. An instructor's launch
does the same by itself.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dataDir, log, closeLog, err := setup()
			if err != nil {
				return err
			}
			defer closeLog()
			st, err := app.OpenStore(cmd.Context(), app.StoreTarget(globals.store, dataDir), log)
			if err != nil {
				return err
			}
			defer st.Close()
			launches, err := st.LTILaunches(cmd.Context(), "", course)
			if err != nil {
				return err
			}
			var from *lti.Platform
			url := ""
			reg, err := lti.NewRegistry(ltiPlatforms(globals.config.LTI))
			if err != nil {
				return err
			}
			for _, l := range launches {
				if l.Memberships == "" {
					continue
				}
				p, err := reg.Find(l.Issuer, l.ClientID)
				if err == nil {
					from, url = &p, l.Memberships
					break
				}
			}
			if from == nil {
				return fmt.Errorf("no launch from course %q carried a roster service yet: launch examtui once from that course (as its instructor)", course)
			}
			keys, err := ltiKeys(globals.config.LTI, dataDir)
			if err != nil {
				return err
			}
			n, err := candsrv.SyncRoster(cmd.Context(), st, lti.NewServices(keys, nil, nil), *from, url)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d learner(s) of course %s are in the candidate roster\n", n, course)
			return nil
		},
	}
	cmd.Flags().StringVar(&course, "course", "", "the course's context id (as launches carry it)")
	_ = cmd.MarkFlagRequired("course")
	return cmd
}
