//go:build tools

// Package tools records promtool's main package as a dependency of this
// module, so go.mod/go.sum pin it. ../build-promtool.sh builds it with
// `go build -o .../promtool github.com/prometheus/prometheus/cmd/promtool`.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
