package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
	"github.com/stretchr/testify/require"
)

// dockerfile is the one Dockerfile of every service, at the repository root.
const dockerfile = "../../Dockerfile"

// imageConfig is what a Dockerfile stage chain leaves in the image config, and the build commands
// it ran on the way.
type imageConfig struct {
	Entrypoint, Cmd []string
	User            string
	Runs            []string
}

// resolve follows the final stage of the Dockerfile up through its base stages for SERVICE=svc
// and applies their ENTRYPOINT, CMD and USER in order, as Docker does (ENTRYPOINT clears an
// inherited CMD). Stages the chain copies from (COPY --from) contribute their RUN commands.
func resolve(t *testing.T, stages []instructions.Stage, svc string) imageConfig {
	t.Helper()
	env := shell.EnvsFromSlice([]string{"SERVICE=" + svc})
	lex := shell.NewLex('\\')
	byName := map[string]instructions.Stage{}
	for _, s := range stages {
		byName[s.Name] = s
	}
	var chain []instructions.Stage
	for s, ok := stages[len(stages)-1], true; ok; {
		chain = append([]instructions.Stage{s}, chain...)
		base, _, err := lex.ProcessWord(s.BaseName, env)
		require.NoError(t, err)
		s, ok = byName[base]
	}
	var cfg imageConfig
	runsOf := func(s instructions.Stage) {
		for _, c := range s.Commands {
			if run, ok := c.(*instructions.RunCommand); ok {
				line, _, err := lex.ProcessWord(strings.Join(run.CmdLine, " "), env)
				require.NoError(t, err)
				cfg.Runs = append(cfg.Runs, line)
			}
		}
	}
	for _, s := range chain {
		for _, c := range s.Commands {
			switch c := c.(type) {
			case *instructions.EntrypointCommand:
				cfg.Entrypoint, cfg.Cmd = c.CmdLine, nil
			case *instructions.CmdCommand:
				cfg.Cmd = c.CmdLine
			case *instructions.UserCommand:
				cfg.User = c.User
			case *instructions.CopyCommand:
				if from, ok := byName[c.From]; ok {
					runsOf(from)
				}
			}
		}
	}
	return cfg
}

// TestDockerfileBuildsWhatToolsImagesBuilds: `docker build --build-arg SERVICE=<svc> .` ends in
// an image with the entrypoint, command and user of the images tools/images writes, and
// compiles that service's command, statically, to that entrypoint. (No container engine here:
// the file is read with BuildKit's own parser; the kind workflow builds it for real.)
func TestDockerfileBuildsWhatToolsImagesBuilds(t *testing.T) {
	f, err := os.Open(dockerfile)
	require.NoError(t, err)
	defer f.Close()
	ast, err := parser.Parse(f)
	require.NoError(t, err)
	stages, _, err := instructions.Parse(ast.AST, nil)
	require.NoError(t, err)
	require.NotEmpty(t, stages)

	for _, svc := range services {
		t.Run(svc, func(t *testing.T) {
			cfg := resolve(t, stages, svc)
			require.Equal(t, []string{Entrypoint(svc)}, cfg.Entrypoint)
			require.Equal(t, []string{"serve"}, cfg.Cmd)
			require.Equal(t, fmt.Sprintf("%d:%d", UID, UID), cfg.User)
			build := fmt.Sprintf("go build -trimpath -ldflags=-s -w -o /out%s ./cmd/%s", Entrypoint(svc), svc)
			require.True(t, containsAny(cfg.Runs, build), "no %q among the build's RUN lines:\n%s", build, strings.Join(cfg.Runs, "\n"))
		})
	}
	build := stages[0]
	require.Equal(t, "build", build.Name)
	require.Contains(t, envOf(build), "CGO_ENABLED=0", "the binary must be static to run on an empty base")
}

func containsAny(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

func envOf(s instructions.Stage) []string {
	var out []string
	for _, c := range s.Commands {
		if e, ok := c.(*instructions.EnvCommand); ok {
			for _, kv := range e.Env {
				out = append(out, kv.Key+"="+kv.Value)
			}
		}
	}
	return out
}
