// Command console serves the client dashboard: server-rendered pages over the public API.
package main

import (
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/console/internal/service"
)

func main() {
	svc.Main(service.Name, platform.Commands(service.New))
}
