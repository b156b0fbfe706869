//go:build tools

// Package tools records actionlint's main package as a dependency of this
// module, so go.mod/go.sum pin it. ../build-actionlint.sh builds it with
// `go build -o .../actionlint github.com/rhysd/actionlint/cmd/actionlint`.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
