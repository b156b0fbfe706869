//go:build tools

// Package tools records the Knative Serving main packages as dependencies of
// this module, so go.mod/go.sum pin them. ../build-serving.sh builds each with
// `go build -o .../<name> knative.dev/serving/cmd/<name>`.
package tools

import (
	_ "knative.dev/serving/cmd/activator"
	_ "knative.dev/serving/cmd/autoscaler"
	_ "knative.dev/serving/cmd/controller"
	_ "knative.dev/serving/cmd/queue"
	_ "knative.dev/serving/cmd/webhook"
)
