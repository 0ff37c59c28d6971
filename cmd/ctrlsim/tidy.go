//go:build ctrlsim_tidy

package main

// The command, for go mod tidy and go mod vendor: the launcher imports none
// of its packages (it builds the command with go build), yet a module with
// `tool github.com/ctrlsim/ctrlsim/cmd/ctrlsim` in its go.mod needs every
// module the command imports in its go.mod and go.sum, as it would if the
// tool were the command itself. tidy and vendor read the files of every
// build tag, so they follow this import; no build sets the tag (the
// command is a main package, not importable).
import _ "github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/ctrlsim"
