package lti

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// clockSkew is the leeway on exp and iat between the platform's clock and ours.
const clockSkew = 30 * time.Second

// launch receives the platform's id_token (form_post), verifies it and hands the launch to the
// Launcher. Every refusal says why and stores nothing.
func (t *Tool) launch(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 256<<10)
	if err := r.ParseForm(); err != nil {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: %w", ErrMessage, err))
		return
	}
	if e := r.PostForm.Get("error"); e != "" {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: the platform answered %s: %s", ErrMessage, e, r.PostForm.Get("error_description")))
		return
	}
	state := r.PostForm.Get("state")
	c, err := r.Cookie(stateCookie(state))
	if state == "" || err != nil || c.Value != state {
		if p, ok := t.states.peek(state); ok && state != "" && p.storageTarget != "" {
			// No cookie, but the login kept its state in the platform's storage: a page
			// fetches it from there and posts it to PathVerify with the token.
			t.storagePage(w, storagePageData{Mode: "launch", Target: p.storageTarget, Origin: p.authOrigin, State: state,
				Nonce: p.nonce, IDToken: r.PostForm.Get("id_token")})
			return
		}
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: this browser did not start the login (no state cookie); launch again from the course", ErrState))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: c.Name, Value: "", Path: "/lti/", MaxAge: -1})
	p, ok := t.states.take(state)
	if !ok {
		t.refuse(w, http.StatusBadRequest, fmt.Errorf("%w: unknown or expired login; launch again from the course", ErrState))
		return
	}
	t.admit(w, r, p, r.PostForm.Get("id_token"), "cookie")
}

// admit verifies the id_token of the login p, whose state this browser has proven (by its
// cookie or from the platform's storage: stateFrom says which), and hands the launch to the Launcher.
func (t *Tool) admit(w http.ResponseWriter, r *http.Request, p pending, idToken, stateFrom string) {
	l, err := t.Verify(r.Context(), idToken, p)
	if err != nil {
		t.refuse(w, http.StatusUnauthorized, err)
		return
	}
	t.log.Info("lti launch", "issuer", l.Platform.Issuer, "deployment", l.DeploymentID, "message", l.MessageType,
		"resourceLink", l.ResourceLink.ID, "instructor", l.IsInstructor(), "stateFrom", stateFrom)
	switch {
	case l.MessageType == MessageDeepLinking:
		if !l.IsInstructor() {
			t.refuse(w, http.StatusForbidden, fmt.Errorf("%w: only an instructor places an exam in a course", ErrRole))
			return
		}
		t.picker(w, r, l)
	case l.IsInstructor():
		t.cfg.Launcher.Instructor(w, r, l)
	case l.Custom["view"] == "examiner":
		t.refuse(w, http.StatusForbidden, fmt.Errorf("%w: this link is the examiners' page; a learner cannot open it", ErrRole))
	case l.IsLearner():
		t.cfg.Launcher.Learner(w, r, l)
	default:
		t.refuse(w, http.StatusForbidden, fmt.Errorf("%w: the launch carries neither a Learner nor an Instructor role", ErrRole))
	}
}

// Verify checks an id_token for the login p (the nonce it must carry, the platform that must
// have signed it) and returns the launch it describes.
func (t *Tool) Verify(ctx context.Context, raw string, p pending) (*Launch, error) {
	if raw == "" {
		return nil, fmt.Errorf("%w: no id_token", ErrInvalidToken)
	}
	plat, err := t.cfg.Platforms.Find(p.issuer, p.clientID)
	if err != nil {
		return nil, err
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(raw, claims, func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("no key id (kid) in the header")
		}
		k, err := t.keys.key(ctx, plat.JWKSURL, kid)
		if err != nil {
			return nil, err
		}
		return k.RSA()
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithIssuer(plat.Issuer), jwt.WithAudience(plat.ClientID),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(clockSkew), jwt.WithTimeFunc(t.cfg.Now))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if aud, _ := claims.GetAudience(); len(aud) > 1 || str(claims, "azp") != "" {
		if str(claims, "azp") != plat.ClientID {
			return nil, fmt.Errorf("%w: azp %q is not this tool's client id", ErrInvalidToken, str(claims, "azp"))
		}
	}
	if str(claims, "nonce") == "" || str(claims, "nonce") != p.nonce {
		return nil, fmt.Errorf("%w: the token's nonce is not the login's", ErrNonce)
	}
	if !t.states.useNonce(p.nonce) {
		return nil, fmt.Errorf("%w: nonce already used (a replayed launch)", ErrNonce)
	}
	if v := str(claims, claimVersion); v != ltiVersion {
		return nil, fmt.Errorf("%w: LTI version %q, want %s", ErrMessage, v, ltiVersion)
	}
	dep := str(claims, claimDeploymentID)
	if !plat.AllowsDeployment(dep) {
		return nil, fmt.Errorf("%w: %q of %s", ErrUnknownDeploy, dep, plat.Issuer)
	}
	l := &Launch{Platform: plat, DeploymentID: dep, MessageType: str(claims, claimMessageType),
		Subject: str(claims, "sub"), Name: str(claims, "name"), Email: str(claims, "email"), TargetLink: str(claims, claimTargetLinkURI)}
	if err := decodeLaunch(claims, l); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMessage, err)
	}
	return l, nil
}

// decodeLaunch fills the message-specific parts of l and checks what its message type needs.
func decodeLaunch(claims jwt.MapClaims, l *Launch) error {
	for _, c := range []struct {
		name string
		v    any
	}{{claimRoles, &l.Roles}, {claimResourceLink, &l.ResourceLink}, {claimContext, &l.Context}, {claimCustom, &l.Custom}} {
		if err := claimInto(claims, c.name, c.v); err != nil {
			return err
		}
	}
	if _, ok := claims[claimAGSEndpoint]; ok {
		l.AGS = &AGSEndpoint{}
		if err := claimInto(claims, claimAGSEndpoint, l.AGS); err != nil {
			return err
		}
	}
	if _, ok := claims[claimNRPS]; ok {
		l.NRPS = &NRPSEndpoint{}
		if err := claimInto(claims, claimNRPS, l.NRPS); err != nil {
			return err
		}
	}
	if l.Subject == "" {
		return errors.New("no sub: anonymous launches cannot sit an exam")
	}
	switch l.MessageType {
	case MessageResourceLink:
		if l.ResourceLink.ID == "" {
			return errors.New("a resource link launch without resource_link.id")
		}
	case MessageDeepLinking:
		l.DeepLink = &DeepLinkSettings{}
		if err := claimInto(claims, claimDeepLinking, l.DeepLink); err != nil {
			return err
		}
		if l.DeepLink.ReturnURL == "" {
			return errors.New("a deep linking request without deep_link_return_url")
		}
		if !slices.Contains(l.DeepLink.AcceptTypes, "ltiResourceLink") {
			return errors.New("the platform does not accept an ltiResourceLink here")
		}
	default:
		return fmt.Errorf("message type %q: want %s or %s", l.MessageType, MessageResourceLink, MessageDeepLinking)
	}
	return nil
}
