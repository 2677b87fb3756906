package app

import (
	"context"
	"fmt"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/domain/session"
)

// Clock is the time source; tests pass a fixed one.
type Clock func() time.Time

// Accounts signs browsers in and out. Every way in (password, sign-up, an accepted invitation)
// ends the same way: the token is verified for its expiry and plan, and a session is stored
// under a fresh secret, returned for the cookie.
type Accounts struct {
	Identity Identity
	Sessions Sessions
	// MaxAge bounds a session even when the token lives longer.
	MaxAge time.Duration
	Now    Clock
}

// SignIn exchanges an email and password for a session.
func (a Accounts) SignIn(ctx context.Context, email, password string) (session.Secret, error) {
	auth, err := a.Identity.SignIn(ctx, email, password)
	if err != nil {
		return session.Secret{}, err
	}
	return a.start(ctx, auth)
}

// SignUp creates a free account and signs it in.
func (a Accounts) SignUp(ctx context.Context, email, password, businessName string) (session.Secret, error) {
	auth, err := a.Identity.SignUp(ctx, email, password, businessName)
	if err != nil {
		return session.Secret{}, err
	}
	return a.start(ctx, auth)
}

// AcceptInvitation activates an invited client with its chosen password and signs it in.
func (a Accounts) AcceptInvitation(ctx context.Context, inviteToken, password string) (session.Secret, error) {
	auth, err := a.Identity.AcceptInvitation(ctx, inviteToken, password)
	if err != nil {
		return session.Secret{}, err
	}
	return a.start(ctx, auth)
}

func (a Accounts) start(ctx context.Context, auth Auth) (session.Secret, error) {
	v, err := a.Identity.Verify(ctx, auth.Token)
	if err != nil {
		return session.Secret{}, fmt.Errorf("verify the new token: %w", err)
	}
	secret := session.NewSecret()
	sess := session.Session{Token: auth.Token, Email: v.Email, Plan: v.Plan,
		ExpiresAt: session.Lifetime(a.Now(), v.ExpiresAt, a.MaxAge)}
	if err := a.Sessions.Create(ctx, secret, sess); err != nil {
		return session.Secret{}, err
	}
	return secret, nil
}

// Resume finds the session behind a cookie's secret.
func (a Accounts) Resume(ctx context.Context, s session.Secret) (session.Session, error) {
	return a.Sessions.Get(ctx, s)
}

// SignOut ends the session server-side: the cookie's secret opens nothing afterwards.
func (a Accounts) SignOut(ctx context.Context, s session.Secret) error {
	return a.Sessions.Delete(ctx, s)
}

// ChangePassword changes the password. Identity then refuses the session's token (earlier
// tokens are revoked), so the session ends too and the person signs in with the new password.
func (a Accounts) ChangePassword(ctx context.Context, s session.Secret, sess session.Session, current, next string) error {
	if err := a.Identity.ChangePassword(ctx, sess.Token, current, next); err != nil {
		return err
	}
	return a.Sessions.Delete(ctx, s)
}
