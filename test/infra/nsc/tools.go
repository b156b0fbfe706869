//go:build tools

// Package tools records the nsc command's main package as a dependency of
// this module, so go.mod/go.sum pin it. ../build-nsc.sh builds it with
// `go build -o .../nsc github.com/nats-io/nsc/v2`.
package tools

import _ "github.com/nats-io/nsc/v2"
