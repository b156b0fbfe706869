// Command cert-manager runs the part of the cert-manager controller the
// integration tests need: the Certificate controllers, the approver, the
// Issuer/ClusterIssuer controllers and the SelfSigned and CA issuers. The
// upstream cmd/controller module is not served by the Go module proxy, so
// this main builds the same controllers from the published main module by
// their registered names. Leader election is off: one process per control
// plane. See ../README.md and ../build-cert-manager.sh.
//
//	cert-manager --kubeconfig=<path> [--cluster-resource-namespace=<ns>]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"github.com/cert-manager/cert-manager/pkg/controller"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

// The controllers this binary runs, by the names they register under.
var controllers = []string{
	"certificates-trigger",
	"certificates-issuing",
	"certificates-key-manager",
	"certificates-request-manager",
	"certificates-readiness",
	"certificates-revision-manager",
	"certificaterequests-approver",
	"certificaterequests-issuer-selfsigned",
	"certificaterequests-issuer-ca",
	"issuers",
	"clusterissuers",
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server")
	clusterNS := flag.String("cluster-resource-namespace", "cert-manager", "namespace of the Secrets a ClusterIssuer reads")
	workers := flag.Int("workers", 2, "workers per controller")
	klog.InitFlags(flag.CommandLine)
	flag.Parse()
	logf.InitLogs()
	defer logf.FlushLogs()

	if err := run(*kubeconfig, *clusterNS, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "cert-manager:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, clusterNS string, workers int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = logf.NewContext(ctx, logf.Log, "cert-manager")

	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   50,
		KubernetesAPIBurst: 100,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: clusterNS},
		CertificateOptions: controller.CertificateOptions{
			// The upstream controller's defaults.
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
	})
	if err != nil {
		return err
	}

	known := controller.Known()
	var run []controller.Interface
	for _, name := range controllers {
		construct, ok := known[name]
		if !ok {
			return fmt.Errorf("controller %q is not registered (have %v)", name, names(known))
		}
		c, err := construct(factory)
		if err != nil {
			return fmt.Errorf("constructing %s: %w", name, err)
		}
		run = append(run, c)
	}

	// Every Context built from the factory shares its informer factories;
	// they start once all controllers have asked for their informers.
	shared, err := factory.Build()
	if err != nil {
		return err
	}
	shared.KubeSharedInformerFactory.Start(ctx.Done())
	shared.SharedInformerFactory.Start(ctx.Done())
	shared.HTTP01ResourceMetadataInformersFactory.Start(ctx.Done())
	shared.GWShared.Start(ctx.Done())

	fmt.Fprintf(os.Stderr, "cert-manager: running %d controllers\n", len(run))
	var wg sync.WaitGroup
	errs := make(chan error, len(run))
	for i, c := range run {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.Run(workers, ctx); err != nil {
				errs <- fmt.Errorf("%s: %w", controllers[i], err)
				stop()
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func names(known map[string]controller.Constructor) []string {
	out := make([]string, 0, len(known))
	for name := range known {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
