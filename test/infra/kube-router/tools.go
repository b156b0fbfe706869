//go:build tools

// Package tools records kube-router's main package as a dependency of this
// module, so go.mod/go.sum pin it. ../build-node.sh builds it as the real
// node's NetworkPolicy enforcer (its firewall controller only).
package tools

import _ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
