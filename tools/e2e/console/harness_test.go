package console_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/bizassist/bizassist/tools/internal/devenv"
)

// The console suite's source addresses (docs/conventions.md): 127.0.7.x. Each browser gets its
// own, through a proxy that dials the ingress from it, so per-address limits never spill over.
const sourcePrefix = "127.0.7."

// flowTimeout bounds one flow; the whole suite is a few of these.
const flowTimeout = 90 * time.Second

// stepTimeout bounds one step of a flow (a navigation, a submit, a wait for an element).
const stepTimeout = 20 * time.Second

var (
	env         map[string]string
	root        string // the repository, whose .devstack is the stack's
	skipReason  string
	browserOpts []chromedp.ExecAllocatorOption // nil when the suite is skipped
	nextIP      atomic.Int32
	axeSource   string
)

func TestMain(m *testing.M) {
	if os.Getenv("BIZASSIST_E2E") != "1" {
		skipReason = "browser tests run with BIZASSIST_E2E=1 against make up's stack (make test-e2e)"
		os.Exit(m.Run())
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: console browser tests: %v\n", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	wd, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	if root, err = devenv.Root(wd); err != nil {
		return 0, err
	}
	path := os.Getenv("BIZASSIST_E2E_ENV") // another install's settings (tools/e2e/harness_test.go)
	if path == "" {
		path = filepath.Join(root, ".devstack", "env")
	}
	if env, err = devenv.Load(path); err != nil {
		return 0, fmt.Errorf("read the stack's settings (run make up first): %w", err)
	}
	axePath := os.Getenv("AXE_CORE_JS")
	if axePath == "" {
		return 0, errors.New("AXE_CORE_JS is not set (make test-e2e installs axe-core and sets it)")
	}
	b, err := os.ReadFile(axePath)
	if err != nil {
		return 0, err
	}
	axeSource = string(b)
	browser := os.Getenv("CHROMIUM")
	if browser == "" {
		browser = "/usr/bin/chromium"
	}
	if _, err := os.Stat(browser); err != nil {
		return 0, fmt.Errorf("no Chromium at %s (apt-get install chromium; make deps installs it): %w", browser, err)
	}
	browserOpts = append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		// The stack's CA is not in the browser's store; the relay below is the only peer.
		chromedp.Flag("ignore-certificate-errors", true),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900),
	)
	return m.Run(), nil
}

// browser is one browser context (its own cookies) reaching the ingress from its own address.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string // https://127.0.0.1:<proxy port>
	ip   string
}

// newBrowser opens an isolated browser context behind a proxy from a fresh source address.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	if browserOpts == nil {
		t.Skip(skipReason)
	}
	ip := fmt.Sprintf("%s%d", sourcePrefix, 10+nextIP.Add(1))
	base := proxy(t, ip)
	// A browser process each: its own profile, so its own cookies (a second person).
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserOpts...)
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(bctx, flowTimeout)
	t.Cleanup(cancelT)
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx, base: base, ip: ip}
}

// proxy listens on 127.0.0.1 and relays bytes (TLS included) to the ingress, dialled from ip.
func proxy(t *testing.T, ip string) string {
	t.Helper()
	target := strings.TrimPrefix(env["BASE_URL"], "https://")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	dialer := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer in.Close()
				out, err := dialer.Dial("tcp", target)
				if err != nil {
					return
				}
				defer out.Close()
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
				go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
				<-done
			})
		}
	})
	return "https://" + ln.Addr().String()
}

// run runs actions within stepTimeout, so that a step waiting for what never comes (an error
// page instead of the expected one) fails with the flow's time left to show that page.
func (b *browser) run(actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.shot("failure")
		b.t.Fatalf("browser: %v (page: %s)", err, b.text("main"))
	}
}

// open loads path and waits for the page's heading.
func (b *browser) open(path string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+path), chromedp.WaitVisible("h1", chromedp.ByQuery))
}

// submit fills a form's fields (selector -> value) and submits it with its button.
func (b *browser) submit(form string, fields map[string]string, button string) {
	b.t.Helper()
	var acts []chromedp.Action
	for sel, v := range fields {
		// SetValue (not clear + SendKeys): chromedp v0.14.2's SetValue refuses an empty value.
		acts = append(acts, chromedp.SetValue(form+" "+sel, v, chromedp.ByQuery))
	}
	b.run(acts...)
	// The answer's page, not the form's: waiting for an h1 alone can see the old page still.
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(form+" "+button, chromedp.ByQuery)); err != nil {
		b.shot("failure")
		b.t.Fatalf("browser: submit %s: %v (page: %s)", form, err, b.text("main"))
	}
	b.run(chromedp.WaitVisible("h1", chromedp.ByQuery))
}

func (b *browser) text(sel string) string {
	var s string
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.Text(sel, &s, chromedp.ByQuery, chromedp.AtLeast(0)))
	return s
}

func (b *browser) value(sel string) string {
	b.t.Helper()
	var s string
	b.run(chromedp.Value(sel, &s, chromedp.ByQuery))
	return s
}

func (b *browser) heading() string { return strings.TrimSpace(b.text("h1")) }

// shot saves a full-page screenshot under the test's output folder.
func (b *browser) shot(name string) {
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 90)); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot: %s", path)
}

// cookie returns the browser's cookie of that name for the console.
func (b *browser) cookie(name string) *network.Cookie {
	b.t.Helper()
	var cookies []*network.Cookie
	b.run(chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		cookies, err = network.GetCookies().WithURLs([]string{b.base}).Do(ctx)
		return err
	}))
	for _, c := range cookies {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// download clicks a link and returns the downloaded file's bytes.
func (b *browser) download(link string) []byte {
	b.t.Helper()
	dir := b.t.TempDir()
	done := make(chan string, 1)
	// The browser-level command below reports progress on the browser's session, not the tab's.
	chromedp.ListenBrowser(b.ctx, func(ev any) {
		if e, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && e.State == cdpbrowser.DownloadProgressStateCompleted {
			select {
			case done <- e.GUID:
			default:
			}
		}
	})
	b.run(chromedp.ActionFunc(func(ctx context.Context) error {
		return cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName).
			WithDownloadPath(dir).WithEventsEnabled(true).Do(browserLevel(ctx))
	}), chromedp.Click(link, chromedp.ByQuery))
	select {
	case guid := <-done:
		data, err := os.ReadFile(filepath.Join(dir, guid))
		if err != nil {
			b.t.Fatal(err)
		}
		return data
	case <-time.After(20 * time.Second):
		b.t.Fatal("the download did not complete")
	}
	return nil
}

// eventually reloads path until ok holds for the page, or fails after timeout.
func (b *browser) eventually(path string, timeout time.Duration, ok func() bool) {
	b.t.Helper()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(timeout)
	for b.open(path); !ok(); b.open(path) {
		select {
		case <-deadline:
			b.shot("timeout")
			b.t.Fatalf("%s: condition not met within %s; page: %s", path, timeout, b.text("main"))
		case <-tick.C:
		}
	}
}

// apiClient calls the API directly, as an integrator would, from the suite's own address.
func apiClient(t *testing.T) *http.Client {
	t.Helper()
	tr, err := devenv.Transport(env["CA_CERT"], sourcePrefix+"5")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// cdp runs a browser-level command (downloads belong to the browser, not the tab).
func browserLevel(ctx context.Context) context.Context {
	return cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser)
}
