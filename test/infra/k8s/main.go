// Command k8s is a multi-call binary for the test control plane: it runs as
// kube-apiserver, kube-controller-manager, etcd or kubectl, chosen by the
// basename it is invoked as (symlinks made by ../build.sh) or, failing that,
// by its first argument: `k8s kube-apiserver --secure-port=...`.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "time/tzdata" // CronJob time zones, as in the upstream mains

	_ "k8s.io/client-go/plugin/pkg/client/auth"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// Each applet sees os.Args as if it were its own executable:
// os.Args[0] is the applet name and the rest are its arguments.
var applets = map[string]func() int{
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	"etcd": func() int {
		etcdmain.Main(os.Args)
		return 0
	},
	"kubectl": func() int {
		_, _ = logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args))
		command := kubectlcmd.NewDefaultKubectlCommand()
		if err := cli.RunNoErrOutput(command); err != nil {
			kubectlutil.CheckErr(err)
		}
		return 0
	},
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
		fmt.Fprintf(os.Stderr, "usage: %s {%s} [flags...]\n", filepath.Base(os.Args[0]), strings.Join(names, "|"))
		os.Exit(2)
	}
	os.Exit(run())
}
