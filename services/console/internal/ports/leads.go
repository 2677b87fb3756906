package ports

import (
	"cmp"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/sheet"
)

// leadsData is the Leads page's data.
type leadsData struct {
	app.Sheet
	Sorts     []sheet.Sort
	Err       error
	NextHref  string
	PrevHref  string
	Found     []sheet.Lead
	Qualified *app.Qualification
}

func (h *Web) leadsPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d leadsData) {
	q := r.URL.Query()
	pageNo, _ := strconv.Atoi(q.Get("page"))
	query := sheet.NewQuery(q.Get("q"), q.Get("sort"), pageNo)
	d.Sheet, d.Err = h.App.Leads.Sheet(r.Context(), s.sess.Token, query, q.Get("cursor"))
	if h.ended(w, r, s, d.Err) {
		return
	}
	d.Sorts = sheet.Sorts
	link := func(p int) string {
		return "/leads?" + url.Values{"q": {query.Text}, "sort": {string(query.Sort)}, "page": {strconv.Itoa(p)}}.Encode()
	}
	switch {
	case d.NextCursor != "":
		d.NextHref = "/leads?" + url.Values{"cursor": {d.NextCursor}}.Encode()
	case d.Next > 0:
		d.NextHref = link(d.Next)
	}
	if d.Prev > 0 {
		d.PrevHref = link(d.Prev)
	}
	v.D = d
	h.page(w, r, status, "leads", v)
}

func (h *Web) leads(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.leadsPage(w, r, s, http.StatusOK, signedView(s, "Leads", "Leads"), leadsData{})
}

func (h *Web) exportCSV(w http.ResponseWriter, r *http.Request, s *signedIn) {
	body, err := h.App.Leads.Export(r.Context(), s.sess.Token)
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v := signedView(s, "Leads", "Leads")
		_, p := describe(err)
		v.Forms["export"] = &form{Err: &p}
		h.leadsPage(w, r, s, statusOf(err), v, leadsData{})
		return
	}
	defer body.Close()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="leads.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	if _, err := io.Copy(w, body); err != nil {
		slog.WarnContext(r.Context(), "csv export cut short", "error", err)
	}
}

func (h *Web) findLeads(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	v := signedView(s, "Leads", "Leads")
	limit, err := strconv.Atoi(cmp.Or(f.Get("limit"), "10"))
	if err != nil {
		v.Forms["finder"] = &form{Values: f, Field: map[string]string{"limit": "Enter a whole number from 1 to 50."}}
		h.leadsPage(w, r, s, http.StatusBadRequest, v, leadsData{})
		return
	}
	found, err := h.App.Leads.Find(r.Context(), s.sess.Token, app.Find{Industry: strings.TrimSpace(f.Get("industry")),
		Location: strings.TrimSpace(f.Get("location")), Limit: limit})
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["finder"] = refused(f, err, "industry", "location", "limit")
		h.leadsPage(w, r, s, statusOf(err), v, leadsData{})
		return
	}
	v.Forms["finder"] = &form{Values: f}
	h.leadsPage(w, r, s, http.StatusOK, v, leadsData{Found: found})
}

func (h *Web) qualify(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	v := signedView(s, "Leads", "Leads")
	q, err := h.App.Leads.Qualify(r.Context(), s.sess.Token, strings.TrimSpace(f.Get("email")),
		strings.TrimSpace(f.Get("businessName")), strings.TrimSpace(f.Get("phone")))
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["qualify"] = refused(f, err, "email", "businessName", "phone")
		h.leadsPage(w, r, s, statusOf(err), v, leadsData{})
		return
	}
	v.Forms["qualify"] = &form{Values: f}
	h.leadsPage(w, r, s, http.StatusOK, v, leadsData{Qualified: &q})
}
