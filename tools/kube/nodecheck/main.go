// Command nodecheck is the part of make test-k8s that runs against the single-node cluster
// (tools/kube/kube-up.sh): it renders the host edge's nginx config from the installed Ingress
// objects, waits for every pod to be Ready, and checks the install under a steady load of API
// requests through the edge: a rolling upgrade, a pod of each service deleted, and evictions
// that the PodDisruptionBudgets must refuse.
//
//	nodecheck edge -dir DIR -https ADDR -http ADDR -cert F -key F -bridge IP < {ingresses, services JSON}
//	nodecheck ready -kubectl BIN -kubeconfig F -timeout D
//	nodecheck verify -kubectl BIN -helm BIN -kubeconfig F -url URL -ca F -upgrade-set K=V... -summary F
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nodecheck edge|ready|verify [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "edge":
		err = edgeCmd(os.Args[2:])
	case "ready":
		err = readyCmd(os.Args[2:])
	case "verify":
		err = verifyCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "nodecheck %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func edgeCmd(args []string) error {
	fs := flag.NewFlagSet("edge", flag.ExitOnError)
	vars := map[string]string{}
	for _, k := range []struct{ name, key, def string }{
		{"dir", "Dir", ""}, {"https", "HTTPSAddr", "127.0.0.1:9443"}, {"http", "HTTPAddr", "127.0.0.1:9080"},
		{"cert", "Cert", ""}, {"key", "Key", ""}, {"bridge", "BridgeAddr", "10.244.0.1"},
	} {
		fs.Func(k.name, k.key+" (default "+k.def+")", func(v string) error { vars[k.key] = v; return nil })
		vars[k.key] = k.def
	}
	ingresses := fs.String("ingresses", "", "kubectl get ingress -o json output")
	services := fs.String("services", "", "kubectl get service -o json output")
	_ = fs.Parse(args)
	_, port, _ := strings.Cut(vars["HTTPSAddr"], ":")
	vars["HTTPSPort"] = port
	ing, err := os.ReadFile(*ingresses)
	if err != nil {
		return err
	}
	svc, err := os.ReadFile(*services)
	if err != nil {
		return err
	}
	return renderEdge(os.Stdout, ing, svc, vars)
}
