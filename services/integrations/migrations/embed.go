// Package migrations embeds the integrations schema's versioned SQL.
package migrations

import "embed"

// FS holds NNN_description.sql files, applied in order by pgkit.Migrate.
//
//go:embed *.sql
var FS embed.FS
