// Command node is a multi-call binary for the test cluster's node: it runs as
// kubelet, kube-proxy or kube-scheduler, chosen by the basename it is invoked
// as (symlinks made by ../build-node.sh) or, failing that, by its first
// argument: `node kubelet --config=...`. A module of its own beside ../k8s so
// that adding the node left the control plane's cache key alone.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	proxy "k8s.io/kubernetes/cmd/kube-proxy/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

// Each applet sees os.Args as if it were its own executable.
var applets = map[string]func() int{
	"kubelet":        func() int { return cli.Run(kubelet.NewKubeletCommand(context.Background())) },
	"kube-proxy":     func() int { return cli.Run(proxy.NewProxyCommand()) },
	"kube-scheduler": func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
}

func main() {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if _, ok := applets[name]; !ok && len(os.Args) > 1 {
		name = os.Args[1]
		os.Args = append([]string{name}, os.Args[2:]...)
	}
	run, ok := applets[name]
	if !ok {
		names := make([]string, 0, len(applets))
		for n := range applets {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: %s <%s> [flags]\n", filepath.Base(os.Args[0]), strings.Join(names, "|"))
		os.Exit(2)
	}
	os.Exit(run())
}
