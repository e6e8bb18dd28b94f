package main

import "errors"

// errNotBuilt marks a command whose implementation has not landed yet.
var errNotBuilt = errors.New("not built yet")
