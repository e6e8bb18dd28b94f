package lti

import "errors"

// Named errors. A refused launch wraps one of them with the reason, and nothing is stored.
var (
	ErrInvalidConfig   = errors.New("lti: invalid configuration")
	ErrUnknownPlatform = errors.New("lti: unknown platform")
	ErrUnknownDeploy   = errors.New("lti: unknown deployment")
	ErrInvalidToken    = errors.New("lti: id_token refused")
	ErrState           = errors.New("lti: login state refused")
	ErrNonce           = errors.New("lti: nonce refused")
	ErrMessage         = errors.New("lti: message refused")
	ErrRole            = errors.New("lti: role refused")
	ErrService         = errors.New("lti: platform service")
	ErrKeys            = errors.New("lti: tool keys")
)
