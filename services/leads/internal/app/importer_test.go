package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/catalog"
)

type sliceRows struct{ rows []app.CatalogRow }

func (s *sliceRows) Next() (app.CatalogRow, error) {
	if len(s.rows) == 0 {
		return app.CatalogRow{}, io.EOF
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}

type memStore struct{ written []catalog.Business }

func (m *memStore) Upsert(_ context.Context, bs []catalog.Business) (int, int, error) {
	m.written = append(m.written, bs...)
	return len(bs), 0, nil
}

func TestImportKeepsGoingPastBadRows(t *testing.T) {
	t.Parallel()
	good := func(id string) catalog.BusinessInput {
		return catalog.BusinessInput{ID: id, Name: "Acme", Vertical: "plumbing", City: "Austin", State: "TX"}
	}
	bad := good("b")
	bad.State = "ZZ"
	rows := &sliceRows{rows: []app.CatalogRow{
		{Line: 1, Input: good("a")},
		{Line: 2, Input: bad},
		{Line: 3, Err: io.ErrUnexpectedEOF},
		{Line: 4, Input: good("a")},
		{Line: 5, Input: good("c")},
	}}
	store := &memStore{}
	var progress int
	rep, err := app.ImportCatalog{Store: store, Now: time.Now}.Handle(context.Background(), rows, func(app.ImportReport) { progress++ })
	require.NoError(t, err)
	require.Equal(t, 5, rep.Read)
	require.Equal(t, 2, rep.Inserted)
	require.Equal(t, 3, rep.RejectedCount)
	require.Equal(t, []app.RejectedRow{
		{Line: 2, Reason: "state: must be a US state code or name"},
		{Line: 3, Reason: "unexpected EOF"},
		{Line: 4, Reason: "id: a already used on line 1"},
	}, rep.Rejected)
	require.Len(t, store.written, 2)
	require.Equal(t, 1, progress)
}

// watchedRows is sliceRows that closes reached[line] once the row of that line has been read.
type watchedRows struct {
	sliceRows
	reached map[int]chan struct{}
}

func (w *watchedRows) Next() (app.CatalogRow, error) {
	r, err := w.sliceRows.Next()
	if ch, ok := w.reached[r.Line]; ok && err == nil {
		close(ch)
	}
	return r, err
}

// failingStore fails its failOn-th upsert and records whether two upserts ever ran at once. Its
// n-th upsert returns only once readAhead[n-1] is closed: when the next chunk has been read.
type failingStore struct {
	calls, failOn int
	readAhead     []chan struct{}
	busy          atomic.Bool
	overlapped    bool
}

func (f *failingStore) Upsert(_ context.Context, bs []catalog.Business) (int, int, error) {
	if !f.busy.CompareAndSwap(false, true) {
		f.overlapped = true
	}
	defer f.busy.Store(false)
	select {
	case <-f.readAhead[f.calls]:
	case <-time.After(10 * time.Second):
		return 0, 0, errors.New("the next chunk was not read while this one was written")
	}
	f.calls++
	if f.calls == f.failOn {
		return 0, 0, errors.New("connection lost")
	}
	return len(bs), 0, nil
}

// Chunks are written one at a time and in order while the next is read: a failed chunk ends the
// import with the report as of that chunk, and nothing after it is written.
func TestImportStopsAtTheFailedChunk(t *testing.T) {
	t.Parallel()
	const chunks = 4
	// The chunks end at lines 5001 (line 2 is refused), 10001 and 15001.
	readAhead := []chan struct{}{make(chan struct{}), make(chan struct{})}
	rows := watchedRows{reached: map[int]chan struct{}{10001: readAhead[0], 15001: readAhead[1]}}
	for i := range chunks * 5000 {
		in := catalog.BusinessInput{ID: fmt.Sprintf("b%d", i), Name: "Acme", Vertical: "plumbing", City: "Austin", State: "TX"}
		if i == 1 {
			in.State = "ZZ"
		}
		rows.rows = append(rows.rows, app.CatalogRow{Line: i + 1, Input: in})
	}
	store := &failingStore{failOn: 2, readAhead: readAhead}
	var progress []app.ImportReport
	rep, err := app.ImportCatalog{Store: store, Now: time.Now}.Handle(context.Background(), &rows, func(r app.ImportReport) { progress = append(progress, r) })
	require.EqualError(t, err, "write rows up to line 10001: connection lost")
	require.Equal(t, 2, store.calls)
	require.False(t, store.overlapped)
	require.Equal(t, []app.ImportReport{{Read: 5001, Inserted: 5000, RejectedCount: 1,
		Rejected: []app.RejectedRow{{Line: 2, Reason: "state: must be a US state code or name"}}}}, progress)
	require.Equal(t, app.ImportReport{Read: 10001, Inserted: 5000, RejectedCount: 1,
		Rejected: []app.RejectedRow{{Line: 2, Reason: "state: must be a US state code or name"}}}, rep)
}
