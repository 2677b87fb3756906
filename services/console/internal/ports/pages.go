package ports

import (
	"cmp"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// safeNext keeps a post-sign-in redirect on this site: a local path of printable ASCII with no
// scheme, host, leading // or backslash, also once decoded. Browsers drop tabs and newlines and
// read \ as /, so "/<TAB>/evil.example" would leave the site.
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		strings.ContainsFunc(next, func(c rune) bool { return c <= ' ' || c > '~' || c == '\\' }) ||
		!strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") ||
		strings.HasPrefix(u.Path, "//") || strings.Contains(u.Path, "\\") {
		return "/"
	}
	return next
}

func (h *Web) anonView(w http.ResponseWriter, r *http.Request, title string) *view {
	return &view{Title: title, CSRF: preSecret(w, r).CSRF(), Forms: map[string]*form{}}
}

func (h *Web) signInPage(w http.ResponseWriter, r *http.Request) {
	v := h.anonView(w, r, "Sign in")
	v.Forms["signin"] = &form{Values: url.Values{"next": {safeNext(r.URL.Query().Get("next"))}}}
	h.page(w, r, http.StatusOK, "signin", v)
}

func (h *Web) signIn(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.Accounts.SignIn(r.Context(), strings.TrimSpace(f.Get("email")), f.Get("password"))
	if err != nil {
		v := h.anonView(w, r, "Sign in")
		f.Del("password")
		v.Forms["signin"] = refused(f, err, "email")
		h.page(w, r, statusOf(err), "signin", v)
		return
	}
	h.signedIn(w, r, secret, safeNext(f.Get("next")))
}

func (h *Web) signedIn(w http.ResponseWriter, r *http.Request, secret session.Secret, next string) {
	sess, err := h.Accounts.Resume(r.Context(), secret)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	setSession(w, secret, sess.ExpiresAt)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (h *Web) signUpPage(w http.ResponseWriter, r *http.Request) {
	h.page(w, r, http.StatusOK, "signup", h.anonView(w, r, "Sign up"))
}

func (h *Web) signUp(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.Accounts.SignUp(r.Context(), strings.TrimSpace(f.Get("email")), f.Get("password"), strings.TrimSpace(f.Get("businessName")))
	if err != nil {
		v := h.anonView(w, r, "Sign up")
		f.Del("password")
		v.Forms["signup"] = refused(f, err, "email", "password", "businessName")
		h.page(w, r, statusOf(err), "signup", v)
		return
	}
	h.signedIn(w, r, secret, "/")
}

func (h *Web) acceptPage(w http.ResponseWriter, r *http.Request) {
	v := h.anonView(w, r, "Accept your invitation")
	v.Forms["accept"] = &form{Values: url.Values{"token": {r.URL.Query().Get("token")}}}
	h.page(w, r, http.StatusOK, "accept", v)
}

func (h *Web) accept(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	secret, err := h.Accounts.AcceptInvitation(r.Context(), f.Get("token"), f.Get("password"))
	if err != nil {
		v := h.anonView(w, r, "Accept your invitation")
		f.Del("password")
		v.Forms["accept"] = refused(f, err, "password")
		h.page(w, r, statusOf(err), "accept", v)
		return
	}
	h.signedIn(w, r, secret, "/")
}

func (h *Web) signOut(w http.ResponseWriter, r *http.Request, s *signedIn) {
	if err := h.Accounts.SignOut(detach(r.Context()), s.secret); err != nil {
		h.fail(w, r, err)
		return
	}
	h.toSignIn(w, r, "signed-out")
}

// statusOf is the status a page refused by the API answers with.
func statusOf(err error) int {
	var ae *app.APIError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
		return ae.Status
	}
	return http.StatusServiceUnavailable
}

// overviewData is the Overview's template data.
type overviewData struct {
	app.Overview
	NextStep struct{ Text, Href string }
}

func (h *Web) overview(w http.ResponseWriter, r *http.Request, s *signedIn) {
	o, err := h.Overview.Handle(r.Context(), s.sess)
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	v := signedView(s, "Overview", "Overview")
	v.Plan = o.Plan
	d := overviewData{Overview: o}
	switch {
	case o.Usage.NearLimit && o.Usage.UpgradeURL != "":
		d.NextStep.Text, d.NextStep.Href = "You are near a limit of your plan: upgrade", o.Usage.UpgradeURL
	case o.LeadsErr == nil && len(o.Leads) == 0:
		d.NextStep.Text, d.NextStep.Href = "Find your first leads", "/leads#finder"
	default:
		d.NextStep.Text, d.NextStep.Href = "Connect your tools with an API key", "/keys"
	}
	v.D = d
	h.page(w, r, http.StatusOK, "overview", v)
}

// keysData is the API keys page's data.
type keysData struct {
	Keys   []app.APIKey
	Err    error
	NewKey *app.NewAPIKey
}

func (h *Web) keysPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d keysData) {
	d.Keys, d.Err = h.API.Identity.Keys(r.Context(), s.sess.Token)
	if app.Unauthenticated(d.Err) {
		h.ended(w, r, s)
		return
	}
	v.D = d
	h.page(w, r, status, "keys", v)
}

func (h *Web) keys(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.keysPage(w, r, s, http.StatusOK, signedView(s, "API keys", "API keys"), keysData{})
}

func (h *Web) createKey(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "API keys", "API keys")
	key, err := h.API.Identity.CreateKey(r.Context(), s.sess.Token, strings.TrimSpace(r.PostForm.Get("name")))
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v.Forms["create"] = refused(r.PostForm, err, "name")
		h.keysPage(w, r, s, statusOf(err), v, keysData{})
		return
	}
	// Rendered, not redirected: the key is shown this once and never stored by the console.
	h.keysPage(w, r, s, http.StatusCreated, v, keysData{NewKey: &key})
}

func (h *Web) revokeKey(w http.ResponseWriter, r *http.Request, s *signedIn) {
	err := h.API.Identity.DeleteKey(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	h.afterAction(w, r, s, err, "/keys", "key-revoked", "revoke", "API keys", func(status int, v *view) {
		h.keysPage(w, r, s, status, v, keysData{})
	})
}

// afterAction redirects after a successful form with a notice, or shows the page again with
// the refusal next to the form.
func (h *Web) afterAction(w http.ResponseWriter, r *http.Request, s *signedIn, err error, target, notice, formID, title string, again func(int, *view)) {
	if err == nil {
		http.Redirect(w, r, target+"?done="+notice, http.StatusSeeOther)
		return
	}
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	v := signedView(s, title, title)
	v.Forms[formID] = refused(r.PostForm, err)
	again(statusOf(err), v)
}

// webhooksData is the Webhooks page's data.
type webhooksData struct {
	Hooks         []app.Subscription // REST hooks other than payment events
	Payments      []app.Subscription
	PaymentURL    string
	PaymentEvents []string
	Err           error
	NewSecret     string
	NewHook       *app.Subscription
}

func (h *Web) webhooksPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d webhooksData) {
	subs, err := h.API.Integrations.Subscriptions(r.Context(), s.sess.Token)
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	d.Err, d.PaymentEvents = err, app.PaymentEvents
	for _, sub := range subs {
		if app.IsPaymentEvent(sub.Event) {
			d.Payments, d.PaymentURL = append(d.Payments, sub), sub.HookURL
		} else {
			d.Hooks = append(d.Hooks, sub)
		}
	}
	if _, ok := v.Forms["payments"]; !ok {
		f := &form{Values: url.Values{"hookUrl": {d.PaymentURL}}}
		for _, p := range d.Payments {
			f.Values.Add("events", p.Event)
		}
		v.Forms["payments"] = f
	}
	v.D = d
	h.page(w, r, status, "webhooks", v)
}

func (h *Web) webhooks(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.webhooksPage(w, r, s, http.StatusOK, signedView(s, "Webhooks", "Webhooks"), webhooksData{})
}

func (h *Web) rotateSecret(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Webhooks", "Webhooks")
	secret, err := h.API.Integrations.RotateSecret(r.Context(), s.sess.Token)
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v.Forms["secret"] = refused(r.PostForm, err)
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	h.webhooksPage(w, r, s, http.StatusOK, v, webhooksData{NewSecret: secret})
}

func (h *Web) subscribe(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Webhooks", "Webhooks")
	sub, err := h.API.Integrations.Subscribe(r.Context(), s.sess.Token, strings.TrimSpace(r.PostForm.Get("hookUrl")), r.PostForm.Get("event"))
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v.Forms["subscribe"] = refused(r.PostForm, err, "hookUrl", "event")
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	if sub.Secret == "" {
		http.Redirect(w, r, "/webhooks?done=subscribed", http.StatusSeeOther)
		return
	}
	h.webhooksPage(w, r, s, http.StatusCreated, v, webhooksData{NewHook: &sub})
}

func (h *Web) unsubscribe(w http.ResponseWriter, r *http.Request, s *signedIn) {
	err := h.API.Integrations.Unsubscribe(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	h.afterAction(w, r, s, err, "/webhooks", "unsubscribed", "hooks", "Webhooks", func(status int, v *view) {
		h.webhooksPage(w, r, s, status, v, webhooksData{})
	})
}

func (h *Web) optInPayments(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	events := f["events"]
	hookURL := strings.TrimSpace(f.Get("hookUrl"))
	if f.Get("off") != "" {
		events = nil
	}
	err := h.Payments.Handle(r.Context(), s.sess.Token, hookURL, events)
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v := signedView(s, "Webhooks", "Webhooks")
		v.Forms["payments"] = refused(f, err, "hookUrl")
		h.webhooksPage(w, r, s, statusOf(err), v, webhooksData{})
		return
	}
	http.Redirect(w, r, "/webhooks?done=payments-saved", http.StatusSeeOther)
}

// subscriptionData is one subscription's page: its delivery attempts.
type subscriptionData struct {
	Sub      app.Subscription
	Attempts []app.Attempt
	Err      error
}

func (h *Web) subscriptionPage(w http.ResponseWriter, r *http.Request, s *signedIn, id string, status int, v *view) {
	var d subscriptionData
	subs, err := h.API.Integrations.Subscriptions(r.Context(), s.sess.Token)
	if err == nil {
		i := slices.IndexFunc(subs, func(x app.Subscription) bool { return x.ID == id })
		if i < 0 {
			h.notFound(w, r)
			return
		}
		d.Sub = subs[i]
		d.Attempts, err = h.API.Integrations.Attempts(r.Context(), s.sess.Token, id)
	}
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	d.Err = err
	v.D = d
	h.page(w, r, status, "subscription", v)
}

func (h *Web) subscription(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.subscriptionPage(w, r, s, mux.Vars(r)["id"], http.StatusOK, signedView(s, "Webhook deliveries", "Webhooks"))
}

func (h *Web) replay(w http.ResponseWriter, r *http.Request, s *signedIn) {
	sub := r.PostForm.Get("subscription")
	err := h.API.Integrations.Replay(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	target := "/webhooks/subscriptions/" + url.PathEscape(sub)
	h.afterAction(w, r, s, err, target, "replayed", "replay", "Webhook deliveries", func(status int, v *view) {
		v.Active = "Webhooks"
		h.subscriptionPage(w, r, s, sub, status, v)
	})
}

// clientsData is the Clients page's data.
type clientsData struct {
	Clients    []dashboard.Client
	Err        error
	InviteLink string
}

func (h *Web) clientsPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d clientsData) {
	d.Clients, d.Err = h.Clients.Handle(r.Context(), s.sess)
	if app.Unauthenticated(d.Err) {
		h.ended(w, r, s)
		return
	}
	if d.Err != nil {
		_, p := describe(d.Err)
		v.Forms["list"] = &form{Err: &p}
	}
	v.D = d
	h.page(w, r, status, "clients", v)
}

func (h *Web) clients(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.clientsPage(w, r, s, http.StatusOK, signedView(s, "Clients", "Clients"), clientsData{})
}

func (h *Web) invite(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	v := signedView(s, "Clients", "Clients")
	inv, err := h.API.Identity.InviteClient(r.Context(), s.sess.Token, app.Invite{Email: strings.TrimSpace(f.Get("email")),
		BusinessName: strings.TrimSpace(f.Get("businessName")), OwnerName: strings.TrimSpace(f.Get("ownerName")),
		Phone: strings.TrimSpace(f.Get("phone")), Plan: f.Get("plan")})
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v.Forms["invite"] = refused(f, err, "email", "businessName", "ownerName", "phone", "plan")
		h.clientsPage(w, r, s, statusOf(err), v, clientsData{})
		return
	}
	link := "https://" + r.Host + "/invitations/accept?" + url.Values{"token": {inv.InviteToken}}.Encode()
	h.clientsPage(w, r, s, http.StatusCreated, v, clientsData{InviteLink: link})
}

// clientData is one client's page.
type clientData struct {
	Client  dashboard.Client
	Signals map[string]int
	Trend   dashboard.Chart
	Err     error
}

func (h *Web) client(w http.ResponseWriter, r *http.Request, s *signedIn) {
	id := mux.Vars(r)["id"]
	cs, err := h.Clients.Handle(r.Context(), s.sess)
	var d clientData
	if err == nil {
		i := slices.IndexFunc(cs, func(c dashboard.Client) bool { return c.ID == id })
		if i < 0 {
			h.notFound(w, r)
			return
		}
		d.Client = cs[i]
		var points []dashboard.ScorePoint
		points, d.Signals, err = h.API.Analytics.ClientHealth(r.Context(), s.sess.Token, id, app.TrendDays)
		d.Trend = dashboard.Trend(points, h.Now(), app.TrendDays)
	}
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	d.Err = err
	v := signedView(s, "Client: "+d.Client.BusinessName, "Clients")
	v.D = d
	h.page(w, r, http.StatusOK, "client", v)
}

// Sheet paging: plain browsing pages the API by cursor; a search or another order reads the
// newest sheetScan leads and pages them here (the API has no search; docs/decisions.md).
const (
	sheetPage = 25
	sheetScan = 300
)

// leadsData is the Leads page's data.
type leadsData struct {
	Query, Sort      string
	Sorts            []string
	Leads            []app.Lead
	Err              error
	NextHref         string
	PrevHref         string
	Scanned, Matched int
	Found            []app.Lead
	Qualified        *app.Qualification
}

func (h *Web) leadsPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d leadsData) {
	q := r.URL.Query()
	d.Query, d.Sort = strings.TrimSpace(q.Get("q")), q.Get("sort")
	d.Sorts = []string{"newest", "oldest", "name", "business"}
	if !slices.Contains(d.Sorts, d.Sort) {
		d.Sort = "newest"
	}
	if d.Query == "" && d.Sort == "newest" {
		page, err := h.API.Leads.Sheet(r.Context(), s.sess.Token, sheetPage, q.Get("cursor"))
		d.Leads, d.Err = page.Leads, err
		if page.NextCursor != "" {
			d.NextHref = "/leads?" + url.Values{"cursor": {page.NextCursor}}.Encode()
		}
	} else {
		d.Err = h.searchSheet(r, s, &d)
	}
	if app.Unauthenticated(d.Err) {
		h.ended(w, r, s)
		return
	}
	v.D = d
	h.page(w, r, status, "leads", v)
}

func (h *Web) searchSheet(r *http.Request, s *signedIn, d *leadsData) error {
	var all []app.Lead
	cursor := ""
	for len(all) < sheetScan {
		page, err := h.API.Leads.Sheet(r.Context(), s.sess.Token, 100, cursor)
		if err != nil {
			return err
		}
		all = append(all, page.Leads...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	d.Scanned = len(all)
	needle := strings.ToLower(d.Query)
	matched := all[:0]
	for _, l := range all {
		hay := strings.ToLower(strings.Join([]string{l.Name, l.Email, l.Phone, l.BusinessName, l.Source}, " "))
		if strings.Contains(hay, needle) {
			matched = append(matched, l)
		}
	}
	switch d.Sort {
	case "oldest":
		slices.Reverse(matched)
	case "name":
		slices.SortStableFunc(matched, func(a, b app.Lead) int { return cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	case "business":
		slices.SortStableFunc(matched, func(a, b app.Lead) int {
			return cmp.Compare(strings.ToLower(a.BusinessName), strings.ToLower(b.BusinessName))
		})
	}
	d.Matched = len(matched)
	pageNo, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pageNo = max(pageNo, 1)
	from := min((pageNo-1)*sheetPage, len(matched))
	to := min(from+sheetPage, len(matched))
	d.Leads = matched[from:to]
	link := func(p int) string {
		return "/leads?" + url.Values{"q": {d.Query}, "sort": {d.Sort}, "page": {strconv.Itoa(p)}}.Encode()
	}
	if to < len(matched) {
		d.NextHref = link(pageNo + 1)
	}
	if pageNo > 1 {
		d.PrevHref = link(pageNo - 1)
	}
	return nil
}

func (h *Web) leads(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.leadsPage(w, r, s, http.StatusOK, signedView(s, "Leads", "Leads"), leadsData{})
}

func (h *Web) exportCSV(w http.ResponseWriter, r *http.Request, s *signedIn) {
	body, err := h.API.Leads.ExportCSV(r.Context(), s.sess.Token)
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
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
	found, err := h.API.Leads.Find(r.Context(), s.sess.Token, app.Find{Industry: strings.TrimSpace(f.Get("industry")),
		Location: strings.TrimSpace(f.Get("location")), Limit: limit})
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
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
	q, err := h.API.Leads.Qualify(r.Context(), s.sess.Token, strings.TrimSpace(f.Get("email")),
		strings.TrimSpace(f.Get("businessName")), strings.TrimSpace(f.Get("phone")))
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		v.Forms["qualify"] = refused(f, err, "email", "businessName", "phone")
		h.leadsPage(w, r, s, statusOf(err), v, leadsData{})
		return
	}
	v.Forms["qualify"] = &form{Values: f}
	h.leadsPage(w, r, s, http.StatusOK, v, leadsData{Qualified: &q})
}

func (h *Web) assistant(w http.ResponseWriter, r *http.Request, s *signedIn) {
	v := signedView(s, "Assistant", "Assistant")
	v.D = s.sess.Chat
	h.page(w, r, http.StatusOK, "assistant", v)
}

func (h *Web) chat(w http.ResponseWriter, r *http.Request, s *signedIn) {
	msg := strings.TrimSpace(r.PostForm.Get("message"))
	err := h.Chat.Handle(r.Context(), s.secret, &s.sess, msg)
	if err == nil {
		// Post/redirect/get: a reload shows the chat instead of sending the message again.
		http.Redirect(w, r, "/assistant#latest", http.StatusSeeOther)
		return
	}
	if app.Unauthenticated(err) {
		h.ended(w, r, s)
		return
	}
	v := signedView(s, "Assistant", "Assistant")
	v.Forms["chat"] = refused(r.PostForm, err, "message")
	v.D = s.sess.Chat
	h.page(w, r, statusOf(err), "assistant", v)
}

func (h *Web) account(w http.ResponseWriter, r *http.Request, s *signedIn) {
	h.page(w, r, http.StatusOK, "account", signedView(s, "Account", "Account"))
}

func (h *Web) changePassword(w http.ResponseWriter, r *http.Request, s *signedIn) {
	f := r.PostForm
	v := signedView(s, "Account", "Account")
	keep := url.Values{} // passwords are never echoed back
	if f.Get("newPassword") != f.Get("confirmPassword") {
		v.Forms["password"] = &form{Values: keep, Field: map[string]string{"confirmPassword": "The two new passwords differ."}}
		h.page(w, r, http.StatusBadRequest, "account", v)
		return
	}
	err := h.Accounts.ChangePassword(r.Context(), s.secret, s.sess, f.Get("currentPassword"), f.Get("newPassword"))
	if err != nil {
		if app.Unauthenticated(err) {
			h.ended(w, r, s)
			return
		}
		// A wrong current password is identity's 403 naming the field currentPassword.
		v.Forms["password"] = refused(keep, err, "currentPassword", "newPassword")
		h.page(w, r, statusOf(err), "account", v)
		return
	}
	h.toSignIn(w, r, "password-changed")
}
