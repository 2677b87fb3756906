package ports

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bizassist/bizassist/services/console/internal/domain/dashboard"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// static serves the CSS and script, cached by the browser for an hour.
func static() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err)
	}
	files := http.StripPrefix("/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

// Nav is the navigation, in order; the names are part of the interface.
var Nav = []struct{ Name, Path string }{
	{"Overview", "/"}, {"API keys", "/keys"}, {"Webhooks", "/webhooks"}, {"Clients", "/clients"},
	{"Leads", "/leads"}, {"Assistant", "/assistant"}, {"Account", "/account"},
}

// templates holds one template set per page, each the layout plus the page.
type templates struct{ pages map[string]*template.Template }

var funcs = template.FuncMap{
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.UTC().Format("Jan 2, 2006 15:04 UTC")
	},
	"datep": func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return "never"
		}
		return t.UTC().Format("Jan 2, 2006 15:04 UTC")
	},
	"tier": dashboard.TierWords,
	"intp": func(p *int) string {
		if p == nil {
			return "not yet"
		}
		return fmt.Sprint(*p)
	},
	"signal": func(name string) string {
		var b strings.Builder
		for i, r := range name {
			if i > 0 && r >= 'A' && r <= 'Z' {
				b.WriteByte(' ')
				r += 'a' - 'A'
			}
			if i == 0 && r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	},
	"plan":  func(p string) string { return strings.ReplaceAll(p, "_", " ") },
	"ok2xx": func(code *int) bool { return code != nil && *code >= 200 && *code < 300 },
	"inc":   func(i int) int { return i + 1 },
	"list":  func(s ...string) []string { return s },
	"words": func(err error) *problem {
		_, p := describe(err)
		return &p
	},
}

func mustParse() *templates {
	t := &templates{pages: map[string]*template.Template{}}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t.pages[base] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n))
	}
	return t
}

// view is what every page template sees.
type view struct {
	Title   string
	Active  string // the nav entry of this page
	Email   string
	Plan    string
	CSRF    string
	Notice  string
	Message string // the error page's text
	Nav     any
	Forms   map[string]*form
	D       any // the page's own data
}

// Form returns the named form's state (empty when the page is fresh).
func (v *view) Form(id string) *form {
	if f, ok := v.Forms[id]; ok {
		return f
	}
	return &form{}
}

// page renders a page template with status.
func (h *Web) page(w http.ResponseWriter, r *http.Request, status int, name string, v *view) {
	t, ok := h.templates.pages[name]
	if !ok {
		panic("no template " + name)
	}
	v.Nav = Nav
	if v.Notice == "" {
		v.Notice = notices[r.URL.Query().Get("done")]
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		slog.ErrorContext(r.Context(), "render page", "page", name, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// signedView is the view of a page of a signed-in browser.
func signedView(s *signedIn, title, active string) *view {
	return &view{Title: title, Active: active, Email: s.sess.Email, Plan: s.sess.Plan, CSRF: s.secret.CSRF(), Forms: map[string]*form{}}
}

// notices are the fixed confirmations a redirect names (?done=); nothing a link carries is
// echoed into the page.
var notices = map[string]string{
	"signed-out":       "You are signed out.",
	"expired":          "Your session ended. Sign in again to continue.",
	"password-changed": "Your password is changed, and every earlier session and token is signed out. Sign in with the new password.",
	"key-revoked":      "The API key is revoked; requests made with it are refused from now on.",
	"unsubscribed":     "The subscription is deleted.",
	"replayed":         "The delivery is queued again.",
	"payments-saved":   "Payment event forwarding is saved.",
	"subscribed":       "The subscription is saved.",
}
