// Command leads serves lead search, qualification and scoring, imports the business catalog and
// runs the loopback DNS server used by tests and the local stack.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bizassist/bizassist/libs/pgkit"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/catalogfile"
	"github.com/bizassist/bizassist/services/leads/internal/adapters/dnsserver"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/service"
)

func main() {
	cmds := platform.Commands(service.New)
	cmds["catalog"] = svc.Command{Summary: "catalog import [--format csv|ndjson] FILE: load or update businesses", Run: catalogCmd}
	cmds["dns-serve"] = svc.Command{Summary: "serve the loopback DNS zone of the catalog and mail providers (LEADS_DNS_SERVE_ADDR)", Run: dnsServe}
	svc.Main(service.Name, cmds)
}

const importUsage = "usage: catalog import [--format csv|ndjson] FILE (format defaults to the file extension)"

func catalogCmd(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "import" {
		return svc.Usagef(importUsage)
	}
	fs := flag.NewFlagSet("catalog import", flag.ContinueOnError)
	format := fs.String("format", "", "csv or ndjson")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
		return svc.Usagef(importUsage)
	}
	path := fs.Arg(0)
	if *format == "" {
		*format = strings.TrimPrefix(filepath.Ext(path), ".")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	counted := &countingReader{r: f}
	bar := newProgressBar(os.Stderr, size, counted.n.Load)
	rows, err := catalogfile.Open(counted, *format)
	if err != nil {
		return svc.Usagef("%v", err)
	}
	pool, err := platform.OpenPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	rep, err := service.ImportCatalog(ctx, pool, rows, func(r app.ImportReport) { bar.update(r.Read, false) })
	bar.update(rep.Read, true)
	for _, bad := range rep.Rejected {
		fmt.Fprintf(os.Stderr, "%s:%d: %s\n", path, bad.Line, bad.Reason)
	}
	if rep.RejectedCount > len(rep.Rejected) {
		fmt.Fprintf(os.Stderr, "... and %d more rejected rows\n", rep.RejectedCount-len(rep.Rejected))
	}
	fmt.Printf("read %d, inserted %d, updated %d, rejected %d\n", rep.Read, rep.Inserted, rep.Updated, rep.RejectedCount)
	return err
}

func dnsServe(ctx context.Context, _ []string) error {
	var cfg service.DNSServeConfig
	if err := svc.LoadConfig(&cfg); err != nil {
		return err
	}
	pool, err := pgkit.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	defer pool.Close()
	return dnsserver.Serve(ctx, cfg.Addr, service.DNSZone(pool))
}
