// Package migrations embeds the console schema's versioned SQL.
package migrations

import (
	"embed"

	"github.com/bizassist/bizassist/libs/pgkit"
)

//go:embed *.sql
var files embed.FS

// Source is the console schema's migrations (NNN_description.sql), applied after platform.Shared.
var Source = pgkit.Source{Name: "console", FS: files}
