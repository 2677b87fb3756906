// Package migrations embeds the console schema's versioned SQL.
package migrations

import (
	"embed"
	"io/fs"

	"github.com/bizassist/bizassist/libs/pgkit"
)

//go:embed *.sql
var files embed.FS

// FS holds the NNN_description.sql files.
var FS fs.FS = files

// Source is the console schema's migration set, applied next to events.Migrations.
var Source = pgkit.Source{Name: "console", FS: FS}
