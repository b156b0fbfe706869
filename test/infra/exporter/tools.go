//go:build tools

// Package tools records prometheus-nats-exporter's main package as a
// dependency of this module, so go.mod/go.sum pin it. ../build-node.sh builds
// it for the exporter sidecar's image on the real node.
package tools

import _ "github.com/nats-io/prometheus-nats-exporter"
