package app_test

import (
	"context"
	"io"
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
