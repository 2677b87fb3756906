// Package migrations embeds the identity schema's versioned SQL.
package migrations

import (
	"embed"

	"github.com/bizassist/bizassist/libs/pgkit"
)

//go:embed *.sql
var files embed.FS

// Source is the identity schema's migrations (NNN_description.sql), applied after platform.Shared.
var Source = pgkit.Source{Name: "identity", FS: files}
