package lang

import "errors"

var (
	// ErrNoPack: no pack for a language (nor for its base language).
	ErrNoPack = errors.New("no language pack")
	// ErrIncompletePack: a pack lacks a command, line, page string or vocabulary.
	ErrIncompletePack = errors.New("incomplete language pack")
	// ErrInvalidPack: a pack file is not a pack (bad JSON, unknown field, unknown key).
	ErrInvalidPack = errors.New("invalid language pack")
)
