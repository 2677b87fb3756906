// Command assistant serves the chat assistant and the agent-brain public feed.
package main

import (
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/assistant/internal/service"
)

func main() {
	svc.Main(service.Name, platform.Commands(service.New))
}
