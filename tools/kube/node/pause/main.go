// Command pause is the pod sandbox's process on the project's single-node cluster (tools/kube/node.sh):
// it holds the pod's namespaces and exits on SIGTERM or SIGINT, the job of Kubernetes' pause image,
// which no registry serves here.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
}
