//go:build tools

// Package tools records kube-state-metrics' main package as a dependency of
// this module, so go.mod/go.sum pin it. ../build-kube-state-metrics.sh builds
// it with `go build -o .../kube-state-metrics k8s.io/kube-state-metrics/v2`.
package tools

import _ "k8s.io/kube-state-metrics/v2"
