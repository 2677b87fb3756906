package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

// CatalogRow is one record read from a catalog file; Err says why it could not be read.
type CatalogRow struct {
	Line  int
	Input catalog.BusinessInput
	Err   error
}

// CatalogRows yields rows until io.EOF; any other error ends the import.
type CatalogRows interface {
	Next() (CatalogRow, error)
}

// CatalogWriter upserts businesses by external id.
type CatalogWriter interface {
	Upsert(ctx context.Context, bs []catalog.Business) (inserted, updated int, err error)
}

// RejectedRow is a row that was skipped, with the reason.
type RejectedRow struct {
	Line   int
	Reason string
}

// ImportReport sums up an import; Rejected lists at most MaxRejectedListed rows.
type ImportReport struct {
	Read, Inserted, Updated, RejectedCount int
	Rejected                               []RejectedRow
}

// MaxRejectedListed bounds the rejected rows kept for the report; the count covers all of them.
const MaxRejectedListed = 1000

// importChunk rows are written per transaction: a failure loses at most one chunk, and a re-run
// redoes it idempotently.
const importChunk = 5000

// ImportCatalog is `leads catalog import FILE`.
type ImportCatalog struct {
	Store CatalogWriter
	Now   func() time.Time
}

// Handle validates every row, upserts the valid ones in chunks and calls progress after each chunk.
// A chunk is written while the next one is read and validated, so the file's decoding and
// validation overlap the database's work instead of adding to it; chunks are still written one at
// a time and in order, so a failure loses at most one.
func (h ImportCatalog) Handle(ctx context.Context, rows CatalogRows, progress func(ImportReport)) (ImportReport, error) {
	var (
		rep     ImportReport
		chunk   = make([]catalog.Business, 0, importChunk)
		spare   = make([]catalog.Business, 0, importChunk)
		now     = h.Now()
		pending chan chunkWrite // the chunk being written, nil when none is
	)
	// wait takes the in-flight chunk's result; on failure the report is the one of that chunk's
	// hand-over, as if reading had stopped there.
	wait := func() error {
		if pending == nil {
			return nil
		}
		w := <-pending
		pending = nil
		if w.err != nil {
			w.at.Inserted, w.at.Updated = rep.Inserted, rep.Updated
			rep = w.at
			return fmt.Errorf("write rows up to line %d: %w", w.at.Read, w.err)
		}
		rep.Inserted += w.inserted
		rep.Updated += w.updated
		w.at.Inserted, w.at.Updated = rep.Inserted, rep.Updated
		progress(w.at)
		spare = w.rows[:0]
		return nil
	}
	flush := func() error {
		if err := wait(); err != nil || len(chunk) == 0 {
			return err
		}
		at := rep
		at.Rejected = rep.Rejected[:len(rep.Rejected):len(rep.Rejected)]
		pending = make(chan chunkWrite, 1)
		go func(bs []catalog.Business, done chan<- chunkWrite) {
			ins, upd, err := h.Store.Upsert(ctx, bs)
			done <- chunkWrite{rows: bs, at: at, inserted: ins, updated: upd, err: err}
		}(chunk, pending)
		chunk, spare = spare, nil
		return nil
	}
	seen := map[string]int{}
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if werr := wait(); werr != nil {
				return rep, werr
			}
			return rep, err
		}
		rep.Read++
		if row.Err == nil {
			var b catalog.Business
			if b, row.Err = catalog.NewBusiness(row.Input, now); row.Err == nil {
				if first, dup := seen[b.ExternalID()]; dup {
					row.Err = fmt.Errorf("id: %s already used on line %d", b.ExternalID(), first)
				} else {
					seen[b.ExternalID()] = row.Line
					chunk = append(chunk, b)
				}
			}
		}
		if row.Err != nil {
			rep.RejectedCount++
			if len(rep.Rejected) < MaxRejectedListed {
				rep.Rejected = append(rep.Rejected, RejectedRow{Line: row.Line, Reason: row.Err.Error()})
			}
		}
		if len(chunk) == importChunk {
			if err := flush(); err != nil {
				return rep, err
			}
		}
	}
	if err := flush(); err != nil {
		return rep, err
	}
	return rep, wait()
}

// chunkWrite is the outcome of writing one chunk; at is the report as of the chunk's last row.
type chunkWrite struct {
	rows              []catalog.Business
	at                ImportReport
	inserted, updated int
	err               error
}
