package ports

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/authjwt"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/idempotency"
	"github.com/bizassist/bizassist/services/identity/internal/app"
	"github.com/bizassist/bizassist/services/identity/internal/domain/account"
)

// maxFormBody bounds the bodies of the account and key routes, which are all small forms.
const maxFormBody = 4 << 10

type signUpRequest struct {
	Email        *string `json:"email"`
	Password     *string `json:"password"`
	BusinessName *string `json:"businessName"`
}

func (h *HTTP) signUp(w http.ResponseWriter, r *http.Request, req signUpRequest) error {
	if err := required(map[string]*string{"email": req.Email, "password": req.Password, "businessName": req.BusinessName}); err != nil {
		return err
	}
	res, err := h.App.SignUp.Handle(r.Context(), app.SignUpCommand{Email: *req.Email, Password: *req.Password, BusinessName: *req.BusinessName})
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusCreated, loginResponse{Token: res.Token, Email: res.Email, Plan: string(res.Plan)})
	return nil
}

type passwordRequest struct {
	CurrentPassword *string `json:"currentPassword"`
	NewPassword     *string `json:"newPassword"`
}

func (h *HTTP) changePassword(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req passwordRequest) error {
	if err := required(map[string]*string{"currentPassword": req.CurrentPassword, "newPassword": req.NewPassword}); err != nil {
		return err
	}
	err := h.App.ChangePassword.Handle(r.Context(), app.ChangePasswordCommand{AccountID: c.AccountID,
		CurrentPassword: *req.CurrentPassword, NewPassword: *req.NewPassword, ClientIP: h.ClientIP(r)})
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
	return nil
}

type keyRequest struct {
	Name *string `json:"name"`
}

type createdKeyResponse struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Key       string     `json:"key"`
	CreatedAt httpx.Time `json:"createdAt"`
}

type keyJSON struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	Prefix     string      `json:"prefix"`
	CreatedAt  httpx.Time  `json:"createdAt"`
	LastUsedAt *httpx.Time `json:"lastUsedAt"`
}

type keysResponse struct {
	Keys []keyJSON `json:"keys"`
}

func (h *HTTP) createKey(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req keyRequest) error {
	if err := required(map[string]*string{"name": req.Name}); err != nil {
		return err
	}
	k, secret, err := h.App.CreateKey.Handle(r.Context(), c.AccountID, *req.Name)
	if err != nil {
		return err
	}
	idempotency.ShownOnce(w, r, "key")
	httpx.Respond(w, http.StatusCreated, createdKeyResponse{ID: k.ID(), Name: k.Name(), Key: secret, CreatedAt: httpx.Time(k.CreatedAt())})
	return nil
}

func (h *HTTP) listKeys(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	keys, err := h.App.ListKeys.Handle(r.Context(), c.AccountID)
	if err != nil {
		return err
	}
	out := keysResponse{Keys: make([]keyJSON, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, keyJSON{ID: k.ID(), Name: k.Name(), Prefix: k.Prefix(),
			CreatedAt: httpx.Time(k.CreatedAt()), LastUsedAt: optionalTime(k.LastUsedAt())})
	}
	httpx.Respond(w, http.StatusOK, out)
	return nil
}

func (h *HTTP) deleteKey(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	if err := h.App.DeleteKey.Handle(r.Context(), c.AccountID, mux.Vars(r)["id"]); err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
	return nil
}

// exchangeKey is the internal route verifiers trade an API key for a short-lived token at.
func (h *HTTP) exchangeKey(w http.ResponseWriter, r *http.Request) error {
	tok, err := h.App.ExchangeKey.Handle(r.Context(), r.Header.Get(authjwt.APIKeyHeader))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.Respond(w, http.StatusOK, struct {
		Token     string     `json:"token"`
		ExpiresAt httpx.Time `json:"expiresAt"`
	}{tok.Value, httpx.Time(tok.ExpiresAt)})
	return nil
}

type inviteRequest struct {
	Email        *string `json:"email"`
	BusinessName *string `json:"businessName"`
	OwnerName    *string `json:"ownerName"`
	Phone        *string `json:"phone"`
	Plan         *string `json:"plan"`
}

type invitationResponse struct {
	ID              string     `json:"id"`
	Plan            string     `json:"plan"`
	InviteToken     string     `json:"inviteToken"`
	InviteExpiresAt httpx.Time `json:"inviteExpiresAt"`
}

func (h *HTTP) inviteClient(w http.ResponseWriter, r *http.Request, c authjwt.Caller, req inviteRequest) error {
	if err := required(map[string]*string{"email": req.Email, "businessName": req.BusinessName}); err != nil {
		return err
	}
	plan, err := httpx.Optional("plan", req.Plan)
	if err != nil {
		return err
	}
	inv, err := h.App.InviteClient.Handle(r.Context(), app.InviteClientCommand{OwnerID: c.AccountID, ClientDetails: account.ClientDetails{
		Email: *req.Email, BusinessName: *req.BusinessName, OwnerName: deref(req.OwnerName), Phone: deref(req.Phone), Plan: plan,
	}})
	if err != nil {
		return err
	}
	idempotency.ShownOnce(w, r, "inviteToken")
	httpx.Respond(w, http.StatusCreated, invitationResponse{ID: inv.Client.ID(), Plan: string(inv.Client.Plan()),
		InviteToken: inv.Token, InviteExpiresAt: httpx.Time(inv.ExpiresAt)})
	return nil
}

type acceptRequest struct {
	Token    *string `json:"token"`
	Password *string `json:"password"`
}

func (h *HTTP) acceptInvitation(w http.ResponseWriter, r *http.Request, req acceptRequest) error {
	if err := required(map[string]*string{"token": req.Token, "password": req.Password}); err != nil {
		return err
	}
	res, err := h.App.AcceptInvite.Handle(r.Context(), *req.Token, *req.Password)
	if err != nil {
		return err
	}
	httpx.Respond(w, http.StatusOK, loginResponse{Token: res.Token, Email: res.Email, Plan: string(res.Plan)})
	return nil
}

type clientJSON struct {
	ID           string      `json:"id"`
	Email        string      `json:"email"`
	BusinessName string      `json:"businessName"`
	Status       string      `json:"status"`
	LastLogin    *httpx.Time `json:"lastLogin"`
	HealthScore  *int        `json:"healthScore"`
	Tier         *string     `json:"tier"`
}

func (h *HTTP) listClients(w http.ResponseWriter, r *http.Request, c authjwt.Caller) error {
	clients, err := h.App.ListClients.Handle(r.Context(), c.AccountID)
	if err != nil {
		return err
	}
	out := make([]clientJSON, 0, len(clients))
	for _, a := range clients {
		j := clientJSON{ID: a.ID(), Email: a.Email(), BusinessName: a.BusinessName(), Status: string(a.Status()),
			LastLogin: optionalTime(a.LastLoginAt())}
		if score, tier, ok := a.Health(); ok {
			j.HealthScore, j.Tier = &score, &tier
		}
		out = append(out, j)
	}
	httpx.Respond(w, http.StatusOK, struct {
		Clients []clientJSON `json:"clients"`
	}{out})
	return nil
}

// required names the first absent field of a request.
func required(fields map[string]*string) error {
	for _, name := range []string{"email", "password", "currentPassword", "newPassword", "name", "businessName", "token"} {
		if v, ok := fields[name]; ok && v == nil {
			return apperr.MissingField(name)
		}
	}
	return nil
}

func optionalTime(t time.Time) *httpx.Time {
	if t.IsZero() {
		return nil
	}
	ht := httpx.Time(t)
	return &ht
}
