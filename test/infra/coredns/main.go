// Command coredns is the test cluster's DNS: CoreDNS's own main with only the
// plugins the cluster's Corefile uses, as a release's plugin.cfg selects them,
// so the build skips the cloud providers' SDKs.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

// In execution order, as in CoreDNS's generated list.
var directives = []string{
	"reload", "bind", "ready", "health", "prometheus", "errors", "log",
	"loadbalance", "cache", "kubernetes", "loop", "forward",
}

func main() {
	if err := dnsserver.SetDirectives(directives); err != nil {
		panic(err)
	}
	coremain.Run()
}
