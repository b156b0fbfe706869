//go:build tools

// Package tools records containerd's main packages as dependencies of this
// module, so go.mod/go.sum pin them. ../build-node.sh builds containerd, its
// runc shim and ctr from them.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
