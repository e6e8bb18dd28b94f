package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/examtui/examtui/cmd/examtui/internal/app"
	candsrv "github.com/examtui/examtui/cmd/examtui/internal/candidate"
	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web"
	"github.com/examtui/examtui/internal/httpserve"
)

// defaultServeAddr is where `examtui serve` listens unless told otherwise.
const defaultServeAddr = "127.0.0.1:8780"

type serveOptions struct {
	creds     livekitCreds
	addr      string
	tlsCert   string
	tlsKey    string
	publicURL string
	tokenTTL  time.Duration
	seatTTL   time.Duration
	specs     string
	agentName string
	language  string
}

func newServeCmd() *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--tls-cert F --tls-key F] [--public-url URL]",
		Short: "Serve the candidates' join page and redeem their join links",
		Long: `Serve the page candidates join their exam room from, in a browser: a link
http://HOST:PORT/join/<code> from "examtui token --role candidate --link", "examtui dispatch" or the
control room opens the page; its Join button exchanges the one-time code for a short-lived
candidate token, minted here (the API secret never leaves this process). The first browser to
use a code keeps it: reloads from that browser work, any other browser is refused.

Codes live in the session store (--store, --data-dir), so the commands that create links must
use the same store. --url is the LiveKit server as the candidates' browsers reach it.

Browsers give the microphone only to secure pages: serve over HTTPS (--tls-cert/--tls-key) or
behind a reverse proxy that does, and pass --public-url with the address candidates use
(docs/candidate.md). SIGINT or SIGTERM stops it.`,
		Example: `  examtui serve --addr 127.0.0.1:8780
  examtui serve --addr 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem --url wss://lk.example.org
  examtui serve --public-url https://exam.example.org --url wss://exam.example.org`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, o) },
	}
	o.creds.addFlags(cmd, true)
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", defaultServeAddr, "address to listen on (HOST:PORT)")
	f.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate (PEM) to serve HTTPS with; needs --tls-key")
	f.StringVar(&o.tlsKey, "tls-key", "", "TLS private key (PEM) of --tls-cert")
	f.StringVar(&o.publicURL, "public-url", "", "the address candidates open, when a reverse proxy stands in front (https://… marks the seat cookie Secure)")
	f.DurationVar(&o.tokenTTL, "token-ttl", candsrv.DefaultTokenTTL, "how long a minted candidate token admits its holder (the page gets a new one on every reload)")
	f.DurationVar(&o.seatTTL, "seat-ttl", candsrv.DefaultSeatTTL, "how long after its first use the same browser can use a link again")
	f.StringVar(&o.specs, "specs", "", "with LTI platforms in the config file: the exam specs directory the workers run (the exams teachers can place)")
	f.StringVar(&o.agentName, "agent-name", defaultAgentName, "with LTI: the workers' agent name a learner's launch dispatches the exam to")
	f.StringVar(&o.language, "language", "en", "the page's language for a link that names none (?lang=): a language pack's tag (docs/languages.md)")
	return cmd
}

func runServe(cmd *cobra.Command, o serveOptions) error {
	o.creds.resolve()
	switch {
	case o.creds.url == "":
		return errors.New("no LiveKit URL: pass --url or set LIVEKIT_URL (the address candidates' browsers reach LiveKit at)")
	case o.creds.key == "" || o.creds.secret == "":
		return errors.New("no API key/secret: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET or pass --api-key and --api-secret")
	case (o.tlsCert == "") != (o.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	}
	if o.publicURL != "" {
		if err := candsrv.CheckBaseURL(o.publicURL); err != nil {
			return fmt.Errorf("--public-url: %w", err)
		}
	}
	var tlsConf *tls.Config
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConf = candsrv.TLSConfig(cert)
	}
	dataDir, log, closeLog, err := setup()
	if err != nil {
		return err
	}
	defer closeLog()
	ctx := cmd.Context()
	st, err := app.OpenStore(ctx, app.StoreTarget(globals.store, dataDir), log)
	if err != nil {
		return err
	}
	defer st.Close()
	defer startRetention(ctx, dataDir, log)()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.addr)
	if err != nil {
		return err
	}
	scheme := "http"
	var serveOpts []httpserve.Option
	if tlsConf != nil {
		serveOpts = append(serveOpts, httpserve.WithTLS(tlsConf))
		scheme = "https"
	}
	base := o.publicURL
	if base == "" {
		base = scheme + "://" + ln.Addr().String()
	}
	mount, ltiNote, err := ltiMount(o, st, dataDir, strings.TrimRight(base, "/"), log)
	if err != nil {
		ln.Close()
		return err
	}
	srv, err := candsrv.New(candsrv.Config{
		Store: st, LiveKitURL: o.creds.url, APIKey: o.creds.key, APISecret: o.creds.secret,
		TokenTTL: o.tokenTTL, SeatTTL: o.seatTTL, Logger: log, Notice: globals.config.Records.Notice, Mount: mount,
		SecureCookies: strings.HasPrefix(base, "https://"), PublicURL: o.publicURL,
		Languages: languagePacks(), Language: o.language,
	})
	if err != nil {
		ln.Close()
		return err
	}
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	fmt.Fprintf(out, "examtui serve: candidates join at %s/join/<code> (listening on %s://%s, store %s)\n",
		strings.TrimRight(base, "/"), scheme, ln.Addr(), st.Target())
	fmt.Fprintf(out, "links: EXAMTUI_SERVE_URL=%s examtui token --role candidate --link --room R --identity ID\n", strings.TrimRight(base, "/"))
	if ltiNote != "" {
		fmt.Fprintln(out, ltiNote)
	}
	if !web.Built() {
		fmt.Fprintln(errOut, "examtui serve: the candidate page is not built into this binary (run make build); join links answer 503")
	}
	if !strings.HasPrefix(base, "https://") && !loopbackAddr(ln.Addr()) {
		fmt.Fprintln(errOut, "examtui serve: plain HTTP off this machine: browsers will refuse the microphone; use --tls-cert/--tls-key or an HTTPS reverse proxy (--public-url)")
	}
	log.Info("candidate server serving", "addr", ln.Addr().String(), "tls", tlsConf != nil, "public", base, "page built", web.Built())
	return srv.Serve(ctx, ln, serveOpts...)
}

// loopbackAddr reports whether a listener is reachable from this machine only (where browsers
// treat http:// as secure).
func loopbackAddr(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
