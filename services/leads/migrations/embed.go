// Package migrations embeds the leads schema's versioned SQL.
package migrations

import (
	"embed"

	"github.com/bizassist/bizassist/libs/pgkit"
)

//go:embed *.sql
var files embed.FS

// Source is the leads schema's migrations (NNN_description.sql), applied after platform.Shared.
var Source = pgkit.Source{Name: "leads", FS: files}
