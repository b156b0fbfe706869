//go:build tools

// Package tools records the helm command's main package as a dependency of
// this module, so go.mod/go.sum pin it. ../build-helm.sh builds it with
// `go build -o .../helm helm.sh/helm/v4/cmd/helm`.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
