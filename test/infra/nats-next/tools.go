//go:build tools

// Package tools records the nats-server main package as a dependency of this
// module, so go.mod/go.sum pin it. ../build-nats-next.sh builds it with
// `go build -o .../nats-server-<version> github.com/nats-io/nats-server/v2`.
package tools

import _ "github.com/nats-io/nats-server/v2"
