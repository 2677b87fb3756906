package app

import (
	"context"
	"io"

	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

// scanPage is how many leads one API call of a search reads.
const scanPage = 100

// LeadsPage is the Leads area: the sheet with search, sort and paging, the CSV download, the
// lead finder and qualifying a lead.
type LeadsPage struct{ Leads Leads }

// Sheet is one page of the leads sheet as shown.
type Sheet struct {
	Query sheet.Query
	Leads []sheet.Lead
	// NextCursor continues plain browsing: the API's cursor for the next page, "" at the end.
	NextCursor string
	// A search or another order: how many of the newest leads were read and matched, and the
	// neighbouring page numbers (0 where there is none).
	Scanned, Matched int
	Next, Prev       int
}

// Sheet answers q. Plain browsing (no search, newest first) is one API page at cursor; a search
// or another order reads the newest sheet.ScanLimit leads and searches, orders and pages them
// here.
func (p LeadsPage) Sheet(ctx context.Context, token string, q sheet.Query, cursor string) (Sheet, error) {
	s := Sheet{Query: q}
	if q.Browsing() {
		page, err := p.Leads.Sheet(ctx, token, sheet.PageSize, cursor)
		s.Leads, s.NextCursor = page.Leads, page.NextCursor
		return s, err
	}
	var all []sheet.Lead
	cursor = ""
	for len(all) < sheet.ScanLimit {
		page, err := p.Leads.Sheet(ctx, token, scanPage, cursor)
		if err != nil {
			return s, err
		}
		all = append(all, page.Leads...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	s.Scanned = len(all)
	r := sheet.Search(all, q)
	s.Leads, s.Matched, s.Next, s.Prev = r.Leads, r.Matched, r.Next, r.Prev
	return s, nil
}

// Export streams the whole sheet as CSV; the caller closes it.
func (p LeadsPage) Export(ctx context.Context, token string) (io.ReadCloser, error) {
	return p.Leads.ExportCSV(ctx, token)
}

// Find runs the lead finder; the leads found join the sheet.
func (p LeadsPage) Find(ctx context.Context, token string, in Find) ([]sheet.Lead, error) {
	return p.Leads.Find(ctx, token, in)
}

// Qualify scores one lead.
func (p LeadsPage) Qualify(ctx context.Context, token, email, businessName, phone string) (Qualification, error) {
	return p.Leads.Qualify(ctx, token, email, businessName, phone)
}
