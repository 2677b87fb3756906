package apitest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/httpx"
	"github.com/bizassist/bizassist/libs/ids"
)

// identity: sign-in and verify, sign-up, the password, API keys, clients and invitations.

func (a *API) login(w http.ResponseWriter, status int, email string) {
	a.mu.Lock()
	tok, plan := a.mint(email), a.accounts[email].plan
	a.mu.Unlock()
	httpx.Respond(w, status, map[string]any{"token": tok, "email": email, "plan": plan})
}

func (a *API) auth(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email    string `json:"email"`
		Password string `json:"password"`
		Action   string `json:"action"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Action == "verify" {
		a.authed(func(w http.ResponseWriter, r *http.Request, email string) {
			a.mu.Lock()
			plan := a.accounts[email].plan
			a.mu.Unlock()
			httpx.Respond(w, http.StatusOK, map[string]any{"valid": true, "email": email, "plan": plan,
				"expiresAt": ts(a.now().Add(24 * time.Hour))})
		})(w, r)
		return
	}
	a.mu.Lock()
	acc := a.accounts[in.Email]
	a.mu.Unlock()
	if acc == nil || acc.password != in.Password {
		httpx.Fail(w, r, apperr.Unauthenticated("invalid_credentials", "invalid email or password").With("valid", false))
		return
	}
	a.login(w, http.StatusOK, in.Email)
}

func (a *API) signUp(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email        string `json:"email"`
		Password     string `json:"password"`
		BusinessName string `json:"businessName"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if len(in.Password) < 10 {
		httpx.Fail(w, r, apperr.InvalidField("password", "must be at least 10 characters"))
		return
	}
	a.mu.Lock()
	_, taken := a.accounts[in.Email]
	if !taken {
		a.accounts[in.Email] = &account{password: in.Password, plan: "free", businessName: in.BusinessName}
	}
	a.mu.Unlock()
	if taken {
		httpx.Fail(w, r, apperr.Conflict("email_taken", "email already registered"))
		return
	}
	a.login(w, http.StatusCreated, in.Email)
}

func (a *API) changePassword(w http.ResponseWriter, r *http.Request, email string) {
	var in struct {
		CurrentPassword string `json:"currentPassword"`
		NewPassword     string `json:"newPassword"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	acc := a.accounts[email]
	if acc.password != in.CurrentPassword {
		httpx.Fail(w, r, &apperr.Error{Kind: apperr.KindForbidden, Code: "current_password_incorrect",
			Field: "currentPassword", Message: "the current password is incorrect"})
		return
	}
	acc.password = in.NewPassword
	for tok, e := range a.tokens { // earlier tokens are revoked
		if e == email {
			delete(a.tokens, tok)
		}
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
}

func (a *API) listKeys(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, k := range a.keys {
		out = append(out, map[string]any{"id": k.id, "name": k.name, "prefix": k.prefix, "createdAt": ts(k.createdAt), "lastUsedAt": nil})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"keys": out})
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request, _ string) {
	var in struct {
		Name string `json:"name"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	if in.Name == "" {
		httpx.Fail(w, r, apperr.MissingField("name"))
		return
	}
	a.mu.Lock()
	a.seq++
	secret := fmt.Sprintf("bza_%036d", a.seq)
	k := key{id: ids.New("key"), name: in.Name, prefix: secret[:8], createdAt: a.now()}
	a.keys = append(a.keys, k)
	a.mu.Unlock()
	httpx.Respond(w, http.StatusCreated, map[string]any{"id": k.id, "name": k.name, "key": secret, "createdAt": ts(k.createdAt)})
}

func (a *API) deleteKey(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	i := slices.IndexFunc(a.keys, func(k key) bool { return k.id == r.PathValue("id") })
	if i >= 0 {
		a.keys = slices.Delete(a.keys, i, i+1)
	}
	a.mu.Unlock()
	if i < 0 {
		httpx.Fail(w, r, apperr.NotFound(apperr.CodeNotFound, "no such key"))
		return
	}
	httpx.Respond(w, http.StatusOK, struct{}{})
}

func (a *API) listClients(w http.ResponseWriter, r *http.Request, _ string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []map[string]any{}
	for _, c := range a.clients {
		var tier any
		if c.Tier != "" {
			tier = c.Tier
		}
		out = append(out, map[string]any{"id": c.ID, "email": c.Email, "businessName": c.BusinessName, "status": c.Status,
			"lastLogin": nil, "healthScore": c.HealthScore, "tier": tier})
	}
	httpx.Respond(w, http.StatusOK, map[string]any{"clients": out})
}

func (a *API) invite(w http.ResponseWriter, r *http.Request, email string) {
	var in struct {
		Email        string `json:"email"`
		BusinessName string `json:"businessName"`
		OwnerName    string `json:"ownerName"`
		Phone        string `json:"phone"`
		Plan         string `json:"plan"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	plan := a.accounts[email].plan
	a.mu.Unlock()
	if plan == "free" {
		httpx.Fail(w, r, apperr.Forbidden("plan_upgrade_required", "inviting clients needs the growth or full_stack plan").With("upgradeUrl", UpgradeURL))
		return
	}
	if !strings.Contains(in.Email, "@") {
		httpx.Fail(w, r, apperr.InvalidField("email", "must be an email address"))
		return
	}
	// As identity does: a plan above the owner's is lowered to the owner's.
	given := cmpOr(in.Plan, "free")
	if !slices.Contains(identityevents.PlansUpTo(plan), given) {
		given = plan
	}
	id := a.AddClient(Client{Email: in.Email, BusinessName: in.BusinessName, Status: "invited"})
	a.mu.Lock()
	a.seq++
	tok := fmt.Sprintf("inv-%d", a.seq)
	a.invitations[tok] = invitation{email: in.Email, plan: given}
	a.mu.Unlock()
	httpx.Respond(w, http.StatusCreated, map[string]any{"id": id, "plan": given, "inviteToken": tok, "inviteExpiresAt": ts(a.now().Add(7 * 24 * time.Hour))})
}

func cmpOr(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

func (a *API) accept(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := httpx.Decode(w, r, &in, 0); err != nil {
		httpx.Fail(w, r, err)
		return
	}
	a.mu.Lock()
	inv, ok := a.invitations[in.Token]
	if ok {
		delete(a.invitations, in.Token)
		a.accounts[inv.email] = &account{password: in.Password, plan: inv.plan}
	}
	a.mu.Unlock()
	if !ok {
		httpx.Fail(w, r, apperr.Invalid("invitation_invalid", "the invitation is unknown, used or expired"))
		return
	}
	a.login(w, http.StatusOK, inv.email)
}
