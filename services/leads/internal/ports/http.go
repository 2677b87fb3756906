// Package ports is the leads service's inbound side: HTTP routes and event consumers. It decodes,
// takes the caller from the context, calls the app, and encodes; nothing else.
package ports

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/ratelimit"
	"github.com/bizassist/bizassist/services/leads/internal/app"
	"github.com/bizassist/bizassist/services/leads/internal/domain/sheet"
)

// maxBody bounds request bodies; a full batch of 25 leads is well under it.
const maxBody = 32 << 10

// HTTP serves the leads routes.
type HTTP struct {
	App app.Application
}

// Routes registers every leads route on r: the general rate limit and authentication on the
// caller's routes, Idempotency-Key on what spends, the statistics' own limit on the public one.
func (h *HTTP) Routes(r *mux.Router, mw platform.Middleware) {
	apiLimit := mw.Limit(ratelimit.API)
	authed := func(f http.Handler) http.Handler { return apiLimit(mw.Authenticated(f)) }
	spends := func(f http.Handler) http.Handler { return apiLimit(mw.Authenticated(mw.Idempotent(f))) }
	findLeads, qualify := authjwt.JSON(maxBody, h.findLeads), httpx.Handler(h.qualify)
	batch, listSheet := authjwt.JSON(maxBody, h.batch), authjwt.Handler(h.listSheet)

	r.Handle("/api/lead-finder", spends(findLeads)).Methods(http.MethodPost)
	r.Handle("/api/lead-qualify", authed(qualify)).Methods(http.MethodGet)
	r.Handle("/api/lead-quality-batch", spends(batch)).Methods(http.MethodPost)
	r.Handle("/api/leads", authed(listSheet)).Methods(http.MethodGet)
	r.Handle("/api/leads/export.csv", authed(authjwt.Handler(h.exportSheet))).Methods(http.MethodGet)
	r.Handle("/api/scout-stats", httpx.PublicCORS(mw.Limit(ratelimit.Stats)(httpx.Handler(h.scoutStats)))).Methods(http.MethodGet, http.MethodHead, http.MethodOptions)

	// The assistant's tools call these on behalf of a caller, with the caller's own token (so the
	// caller's account and allowances apply) but not charged to the caller's IP bucket: its
	// requests to the assistant already were. The ingress routes only /api paths.
	r.Handle("/internal/lead-finder", mw.Authenticated(findLeads)).Methods(http.MethodPost)
	r.Handle("/internal/leads", mw.Authenticated(listSheet)).Methods(http.MethodGet)
	r.Handle("/internal/lead-qualify", mw.Authenticated(qualify)).Methods(http.MethodGet)
	r.Handle("/internal/lead-quality-batch", mw.Authenticated(batch)).Methods(http.MethodPost)
}

type findRequest struct {
	Industry string   `json:"industry"`
	Location string   `json:"location"`
	Limit    *int     `json:"limit"`
	Keywords []string `json:"keywords"`
	// RadiusMiles searches around the resolved city or ZIP code (1 to 100).
	RadiusMiles *float64 `json:"radiusMiles"`
}

type leadJSON struct {
	BusinessName string `json:"businessName"`
	OwnerName    string `json:"ownerName"`
	Email        string `json:"email"`
	Phone        string `json:"phone"`
	Score        int    `json:"score"`
	Source       string `json:"source"`
}

// findLeads presents the caller's token (for an API key, the one minted for it) to analytics
// when it reserves the allowance.
func (h *HTTP) findLeads(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req findRequest) error {
	res, err := h.App.FindLeads.Handle(r.Context(), app.FindLeadsInput{
		AccountID: c.AccountID, Credential: c.Token, Industry: req.Industry, Location: req.Location, Limit: req.Limit, Keywords: req.Keywords,
		RadiusMiles: req.RadiusMiles,
	})
	if err != nil {
		return err
	}
	leads := make([]leadJSON, len(res.Found))
	for i, f := range res.Found {
		leads[i] = leadJSON{BusinessName: f.BusinessName, OwnerName: f.OwnerName, Email: f.Email, Phone: f.Phone,
			Score: f.Rank, Source: f.Source}
	}
	httpx.Respond(w, http.StatusOK, struct {
		Count            int        `json:"count"`
		Leads            []leadJSON `json:"leads"`
		ResolvedLocation string     `json:"resolvedLocation,omitempty"`
		RadiusMiles      *float64   `json:"radiusMiles,omitempty"`
		Alternatives     []string   `json:"alternatives,omitempty"`
		NearMiles        float64    `json:"nearMiles,omitempty"`
	}{len(leads), leads, res.ResolvedLocation, req.RadiusMiles, res.Alternatives, res.NearMiles})
	return nil
}

type qualifyJSON struct {
	Score     int      `json:"score"`
	Qualified bool     `json:"qualified"`
	Reasoning string   `json:"reasoning"`
	Signals   []string `json:"signals"`
}

func (h *HTTP) qualify(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	res, err := h.App.QualifyLead.Handle(r.Context(), app.LeadInput{
		Email: q.Get("email"), BusinessName: q.Get("businessName"), Phone: q.Get("phone"), Country: q.Get("country"),
	})
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, qualifyJSON{Score: res.Score, Qualified: res.Qualified, Reasoning: res.Reasoning, Signals: res.Signals})
	return nil
}

// batchLead is one lead of a batch. It is tolerant where the request is strict: a lead is the
// finder's Lead object as often as a bare input, so fields it does not use (ownerName, score,
// source, ...) are ignored rather than refused.
type batchLead struct {
	Email        string `json:"email"`
	BusinessName string `json:"businessName"`
	Phone        string `json:"phone"`
	Country      string `json:"country"`
}

// decodeBatchLeads decodes each lead tolerantly, naming leads[i].<field> on a wrong type.
func decodeBatchLeads(raw []json.RawMessage) ([]app.LeadInput, error) {
	if raw == nil {
		return nil, nil
	}
	leads := make([]app.LeadInput, len(raw))
	for i, r := range raw {
		var l batchLead
		if err := json.Unmarshal(r, &l); err != nil {
			field := fmt.Sprintf("leads[%d]", i)
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Field != "" {
				return nil, &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: field + "." + typeErr.Field,
					Message: fmt.Sprintf("%s.%s: must be a string", field, typeErr.Field)}
			}
			return nil, &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: field,
				Message: field + ": must be an object with at least email"}
		}
		leads[i] = app.LeadInput{Email: l.Email, BusinessName: l.BusinessName, Phone: l.Phone, Country: l.Country}
	}
	return leads, nil
}

// batchRequest is strict (a misspelt "leads" is refused); each lead is not.
type batchRequest struct {
	Leads []json.RawMessage `json:"leads"`
}

func (h *HTTP) batch(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req batchRequest) error {
	leads, err := decodeBatchLeads(req.Leads)
	if err != nil {
		return err
	}
	res, err := h.App.ScoreBatch.Handle(r.Context(), app.BatchInput{Credential: c.Token, Leads: leads})
	if err != nil {
		return err
	}
	var remaining *int // null on a plan without a cap: "unlimited" has no number
	if !res.Unlimited {
		remaining = &res.Remaining
	}
	httpx.Respond(w, http.StatusOK, struct {
		Scored    int              `json:"scored"`
		Remaining *int             `json:"remaining"`
		Unlimited bool             `json:"unlimited"`
		Results   []app.BatchScore `json:"results"`
	}{res.Scored, remaining, res.Unlimited, res.Results})
	return nil
}

type sheetLeadJSON struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Email        string            `json:"email"`
	Phone        string            `json:"phone"`
	PhoneExt     string            `json:"phoneExtension"`
	PhoneRaw     string            `json:"phoneRaw"`
	BusinessName string            `json:"businessName"`
	Source       string            `json:"source"`
	Notes        string            `json:"notes"`
	Extras       map[string]string `json:"extras"`
	CreatedAt    string            `json:"createdAt"`
}

func (h *HTTP) listSheet(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	q := r.URL.Query()
	in := app.ListInput{AccountID: c.AccountID, Cursor: q.Get("cursor"), Limit: app.DefaultListLimit}
	if err := httpx.QueryInt(q, "limit", &in.Limit); err != nil {
		return err
	}
	page, err := h.App.ListSheet.Handle(r.Context(), in)
	if err != nil {
		return err
	}
	leads := make([]sheetLeadJSON, len(page.Leads))
	for i, l := range page.Leads {
		leads[i] = sheetLeadJSON{ID: l.ID(), Name: l.Name(), Email: l.Email(), Phone: l.Phone(),
			PhoneExt: l.PhoneExtension(), PhoneRaw: l.PhoneRaw(), BusinessName: l.BusinessName(), Source: l.Source(), Notes: l.Notes(), Extras: l.Extras(), CreatedAt: httpx.Timestamp(l.CreatedAt())}
	}
	var next *string
	if page.NextCursor != "" {
		next = &page.NextCursor
	}
	httpx.Respond(w, http.StatusOK, struct {
		Count      int             `json:"count"`
		Leads      []sheetLeadJSON `json:"leads"`
		NextCursor *string         `json:"nextCursor"`
	}{len(leads), leads, next})
	return nil
}

// csvSafe defuses spreadsheet formulas in free-text cells (OWASP CSV injection).
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func (h *HTTP) exportSheet(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	body := &csvBody{w: w}
	cw := csv.NewWriter(body)
	_ = cw.Write([]string{"id", "name", "email", "phone", "businessName", "source", "createdAt", "phoneExtension", "phoneRaw", "notes", "extras"})
	err := h.App.ExportSheet.Handle(r.Context(), c.AccountID, func(l sheet.Lead) error {
		extras, err := json.Marshal(l.Extras()) // one cell: a JSON object, keys sorted
		if err != nil {
			return err
		}
		return cw.Write([]string{l.ID(), csvSafe(l.Name()), csvSafe(l.Email()), l.Phone(),
			csvSafe(l.BusinessName()), csvSafe(l.Source()), httpx.Timestamp(l.CreatedAt()), l.PhoneExtension(), csvSafe(l.PhoneRaw()),
			csvSafe(l.Notes()), string(extras)})
	})
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	if err != nil && body.sent {
		// Headers and part of the body are gone; abort so the client sees a broken transfer,
		// not a short file that looks complete.
		panic(http.ErrAbortHandler)
	}
	return err // nothing reached the client: an ordinary error answer (503 for an outage)
}

// csvBody sets the CSV headers with its first bytes, so that an error before the first buffered
// rows reach the client is still answered with the error envelope.
type csvBody struct {
	w    http.ResponseWriter
	sent bool
}

func (b *csvBody) Write(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		b.w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		b.w.Header().Set("Content-Disposition", `attachment; filename="leads.csv"`)
	}
	return b.w.Write(p)
}

func (h *HTTP) scoutStats(w http.ResponseWriter, r *http.Request) error {
	body, err := h.App.Stats.Handle(r.Context())
	if err != nil {
		return err
	}
	httpx.RespondPublic(w, r, 6*time.Hour, body)
	return nil
}
