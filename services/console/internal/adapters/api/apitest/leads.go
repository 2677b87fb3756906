package apitest

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/httpx"
)

// leads: the sheet, its CSV, the lead finder and qualify.

func leadJSON(l Lead) map[string]any {
	return map[string]any{"id": l.ID, "name": l.Name, "email": l.Email, "phone": l.Phone, "phoneExtension": "", "phoneRaw": "",
		"businessName": l.BusinessName, "source": l.Source, "notes": "", "extras": map[string]string{}, "createdAt": ts(l.CreatedAt)}
}

func (a *API) sheet(w http.ResponseWriter, r *http.Request, _ string) {
	q := r.URL.Query()
	limit, err := strconv.Atoi(cmpOr(q.Get("limit"), "50"))
	if err != nil || limit < 1 || limit > 100 {
		httpx.Fail(w, r, apperr.InvalidField("limit", "must be a whole number from 1 to 100"))
		return
	}
	from := 0
	if c := q.Get("cursor"); c != "" {
		if from, err = strconv.Atoi(strings.TrimPrefix(c, "c")); err != nil || !strings.HasPrefix(c, "c") {
			httpx.Fail(w, r, apperr.InvalidField("cursor", "is not a cursor of this sheet"))
			return
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	from = min(from, len(a.leads))
	to := min(from+limit, len(a.leads))
	out := []map[string]any{}
	for _, l := range a.leads[from:to] {
		out = append(out, leadJSON(l))
	}
	var next any
	if to < len(a.leads) {
		next = "c" + strconv.Itoa(to)
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"count": len(out), "leads": out, "nextCursor": next})
}

func (a *API) export(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	b.WriteString("id,name,email,phone,businessName,source,createdAt,phoneExtension,phoneRaw,notes,extras\n")
	for _, l := range a.leads {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s,%s,,,,{}\n", l.ID, l.Name, l.Email, l.Phone, l.BusinessName, l.Source, ts(l.CreatedAt))
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, b.String())
}

func (a *API) find(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Industry string `json:"industry"`
		Location string `json:"location"`
		Limit    int    `json:"limit"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Limit < 1 || in.Limit > 50 {
		httpx.Fail(w, r, apperr.InvalidField("limit", "must be from 1 to 50"))
		return
	}
	out := []map[string]any{}
	for i := range min(in.Limit, 3) {
		biz := fmt.Sprintf("%s %s %d", strings.ToUpper(in.Industry[:1])+in.Industry[1:], cmpOr(in.Location, "Anywhere"), i+1)
		email := fmt.Sprintf("owner%d@%s.example", i+1, strings.ReplaceAll(strings.ToLower(in.Industry), " ", ""))
		a.AddLeads(Lead{Name: fmt.Sprintf("Owner %d", i+1), Email: email, BusinessName: biz, Source: "lead_finder"})
		out = append(out, map[string]any{"businessName": biz, "ownerName": fmt.Sprintf("Owner %d", i+1), "email": email,
			"phone": fmt.Sprintf("+1512555010%d", i), "score": 80 - i, "source": "lead_finder"})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"count": len(out), "leads": out})
}

func (a *API) qualify(w http.ResponseWriter, r *http.Request, _ string) {
	email := r.URL.Query().Get("email")
	if !strings.Contains(email, "@") {
		httpx.Fail(w, r, apperr.InvalidField("email", "must be an email address"))
		return
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"score": 72, "qualified": true,
		"reasoning": "A business address with a working phone.", "signals": []string{"valid_email_syntax", "business_email"}})
}
