//go:build tools

// Package tools records Traefik's main package as a dependency of this module,
// so go.mod/go.sum pin it. ../build-serving.sh builds it with
// `go build -o .../traefik github.com/traefik/traefik/v3/cmd/traefik`; its
// Knative provider is the harness's KIngress implementation.
package tools

import _ "github.com/traefik/traefik/v3/cmd/traefik"
