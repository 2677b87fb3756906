package ports

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bizassist/bizassist/services/console/internal/app"
)

// form is one form's submitted values and what went wrong with them.
type form struct {
	Values url.Values
	Field  map[string]string // field name -> message shown next to it
	Err    *problem          // shown next to the form's submit button
}

// V is a submitted value, so a form refused keeps what was typed.
func (f *form) V(name string) string { return f.Values.Get(name) }

// Has reports whether a checkbox value was submitted.
func (f *form) Has(name, value string) bool {
	for _, v := range f.Values[name] {
		if v == value {
			return true
		}
	}
	return false
}

// problem is an API refusal in words, with the upgrade link when a plan is the cause.
type problem struct {
	Message    string
	UpgradeURL string
}

// refused builds a form's state from an API refusal: a field error goes next to its field when
// the form has that field, everything else next to the submit button.
func refused(values url.Values, err error, fields ...string) *form {
	f := &form{Values: values, Field: map[string]string{}}
	field, p := describe(err)
	for _, name := range fields {
		if name == field {
			f.Field[field] = p.Message
			return f
		}
	}
	f.Err = &p
	return f
}

// describe says an API refusal in words.
func describe(err error) (string, problem) {
	var ae *app.APIError
	if !errors.As(err, &ae) {
		return "", problem{Message: "The service did not answer, so nothing was changed. Try again in a moment."}
	}
	switch {
	case ae.Status == http.StatusPaymentRequired:
		return "", problem{Message: "Your plan's allowance for this is used up for this month. Upgrade your plan to continue.", UpgradeURL: ae.UpgradeURL}
	case ae.Status == http.StatusForbidden && ae.UpgradeURL != "":
		return "", problem{Message: "Your plan does not include this. Upgrade your plan to use it.", UpgradeURL: ae.UpgradeURL}
	case ae.Status == http.StatusTooManyRequests:
		wait := "a minute"
		if ae.RetryAfter > 0 {
			wait = fmt.Sprintf("%d seconds", ae.RetryAfter)
		}
		return "", problem{Message: "Too many requests from your address just now. Try again in " + wait + "."}
	case ae.Status >= 500:
		return "", problem{Message: "The service did not answer, so nothing was changed. Try again in a moment."}
	}
	msg := ae.Message
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return ae.Field, problem{Message: msg}
}

// statusOf is the status a page refused by the API answers with.
func statusOf(err error) int {
	var ae *app.APIError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
		return ae.Status
	}
	return http.StatusServiceUnavailable
}

// afterAction redirects after a successful form with a notice, or shows the page again with
// the refusal next to the form.
func (h *Web) afterAction(w http.ResponseWriter, r *http.Request, s *signedIn, err error, target, notice, formID, title string, again func(int, *view)) {
	if err == nil {
		http.Redirect(w, r, target+"?done="+notice, http.StatusSeeOther)
		return
	}
	if h.ended(w, r, s, err) {
		return
	}
	v := signedView(s, title, title)
	v.Forms[formID] = refused(r.PostForm, err)
	again(statusOf(err), v)
}
