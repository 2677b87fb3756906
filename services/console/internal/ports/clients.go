package ports

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/services/console/internal/app"
	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
)

// clientsData is the Clients page's data: Plans are those the owner may give a client (its own
// and below), InvitePlan the plan the invitation just made gave.
type clientsData struct {
	Clients                []dashboard.Client
	Err                    error
	Plans                  []string
	InviteLink, InvitePlan string
}

func (h *Web) clientsPage(w http.ResponseWriter, r *http.Request, s *signedIn, status int, v *view, d clientsData) {
	d.Plans = identityevents.PlansUpTo(s.sess.Plan)
	d.Clients, d.Err = h.App.Clients.List(r.Context(), s.sess.Token)
	if h.ended(w, r, s, d.Err) {
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
	inv, err := h.App.Clients.Invite(r.Context(), s.sess.Token, app.Invite{Email: strings.TrimSpace(f.Get("email")),
		BusinessName: strings.TrimSpace(f.Get("businessName")), OwnerName: strings.TrimSpace(f.Get("ownerName")),
		Phone: strings.TrimSpace(f.Get("phone")), Plan: f.Get("plan")})
	if err != nil {
		if h.ended(w, r, s, err) {
			return
		}
		v.Forms["invite"] = refused(f, err, "email", "businessName", "ownerName", "phone", "plan")
		h.clientsPage(w, r, s, statusOf(err), v, clientsData{})
		return
	}
	link := "https://" + r.Host + "/invitations/accept?" + url.Values{"token": {inv.InviteToken}}.Encode()
	h.clientsPage(w, r, s, http.StatusCreated, v, clientsData{InviteLink: link, InvitePlan: inv.Plan})
}

// clientData is one client's page.
type clientData struct {
	app.ClientHealth
	Err error
}

func (h *Web) client(w http.ResponseWriter, r *http.Request, s *signedIn) {
	d, err := h.App.Clients.Client(r.Context(), s.sess.Token, mux.Vars(r)["id"])
	if errors.Is(err, app.ErrNotFound) {
		h.notFound(w, r)
		return
	}
	if h.ended(w, r, s, err) {
		return
	}
	v := signedView(s, "Client: "+d.Client.BusinessName, "Clients")
	v.D = clientData{ClientHealth: d, Err: err}
	h.page(w, r, http.StatusOK, "client", v)
}
