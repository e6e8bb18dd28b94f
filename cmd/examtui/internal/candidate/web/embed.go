// Package web holds the candidate's join page: its sources (src/, bundled with livekit-client
// from npm by `make web`) and the bundle the binary embeds (dist/, built, not committed).
package web

import (
	"embed"
	"io/fs"
)

// dist holds the built page; in a tree where `make web` has not run it holds only .gitkeep.
//
//go:embed all:dist
var dist embed.FS

// FS returns the built page's files (index.html at the root).
func FS() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the directory is embedded above; a failure here is a build bug
	}
	return sub
}

// Built reports whether the page was built into this binary (`make web` ran before go build).
func Built() bool {
	_, err := fs.Stat(FS(), "index.html")
	return err == nil
}
