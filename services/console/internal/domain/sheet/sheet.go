// Package sheet is the leads sheet as the console shows it: a lead's row, and the search, sort
// and paging the console does itself over the newest leads (the API pages by cursor, newest
// first, and has no search: docs/decisions.md). No I/O.
package sheet

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Lead is one row of the sheet, or one found lead.
type Lead struct {
	ID, Name, Email, Phone, BusinessName, Source string
	Score                                        int
	CreatedAt                                    time.Time
}

// PageSize is how many rows one page of the sheet shows.
const PageSize = 25

// ScanLimit is how many of the newest leads a search or another order reads: the console pages
// them itself, so a search covers the newest ScanLimit leads only (the page says so).
const ScanLimit = 300

// Sort is an order of the sheet.
type Sort string

// The orders, as the sort field names them.
const (
	Newest   Sort = "newest"
	Oldest   Sort = "oldest"
	ByName   Sort = "name"
	Business Sort = "business"
)

// Sorts are the orders offered, the default first.
var Sorts = []Sort{Newest, Oldest, ByName, Business}

// Query is what the sheet shows: a search text, an order and a page number (from 1).
type Query struct {
	Text string
	Sort Sort
	Page int
}

// NewQuery normalizes what a link or form asked for: the text trimmed, an unknown order read as
// newest, a page below 1 read as 1.
func NewQuery(text, sort string, page int) Query {
	q := Query{Text: strings.TrimSpace(text), Sort: Sort(sort), Page: max(page, 1)}
	if !slices.Contains(Sorts, q.Sort) {
		q.Sort = Newest
	}
	return q
}

// Browsing reports a query the API answers by itself: no search, newest first, paged by the
// API's cursor.
func (q Query) Browsing() bool { return q.Text == "" && q.Sort == Newest }

// Result is one page of a search over the scanned leads.
type Result struct {
	Leads   []Lead
	Matched int // leads that match, over every page
	// Next and Prev are the neighbouring page numbers, 0 where there is none.
	Next, Prev int
}

// Search filters leads (newest first, as the API lists them) by q's text in the name, email,
// phone, business name or source, case-insensitively; orders them by q's sort (stable, so equal
// names stay newest first); and returns q's page. leads is reordered in place.
func Search(leads []Lead, q Query) Result {
	needle := strings.ToLower(q.Text)
	matched := leads[:0]
	for _, l := range leads {
		hay := strings.ToLower(strings.Join([]string{l.Name, l.Email, l.Phone, l.BusinessName, l.Source}, " "))
		if strings.Contains(hay, needle) {
			matched = append(matched, l)
		}
	}
	switch q.Sort {
	case Oldest:
		slices.Reverse(matched)
	case ByName:
		slices.SortStableFunc(matched, func(a, b Lead) int { return cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	case Business:
		slices.SortStableFunc(matched, func(a, b Lead) int {
			return cmp.Compare(strings.ToLower(a.BusinessName), strings.ToLower(b.BusinessName))
		})
	}
	page := max(q.Page, 1)
	from := len(matched)
	if page <= len(matched)/PageSize+1 { // a page number past the end, however large, is empty
		from = (page - 1) * PageSize
	}
	to := min(from+PageSize, len(matched))
	r := Result{Leads: matched[from:to], Matched: len(matched)}
	if to < len(matched) {
		r.Next = page + 1
	}
	if page > 1 {
		r.Prev = page - 1
	}
	return r
}
