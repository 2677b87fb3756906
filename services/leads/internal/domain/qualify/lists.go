package qualify

import (
	"bufio"
	_ "embed"
	"strings"
)

var (
	//go:embed lists/freemail.txt
	freemailList string
	//go:embed lists/disposable.txt
	disposableList string

	freemailDomains   = domainSet(freemailList)
	disposableDomains = domainSet(disposableList)

	// roleLocalParts are mailboxes that reach a function, not a person.
	roleLocalParts = domainSet(`admin
billing
contact
hello
help
hr
info
jobs
marketing
noreply
no-reply
office
postmaster
sales
support
team
webmaster`)
)

func domainSet(list string) map[string]bool {
	set := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(list))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			set[strings.ToLower(line)] = true
		}
	}
	return set
}

// IsFreeMail reports a consumer mailbox provider's domain.
func IsFreeMail(domain string) bool { return freemailDomains[domain] }

// IsDisposable reports a throwaway-mailbox domain or a subdomain of one.
func IsDisposable(domain string) bool {
	for d := domain; d != ""; {
		if disposableDomains[d] {
			return true
		}
		_, rest, ok := strings.Cut(d, ".")
		if !ok {
			return false
		}
		d = rest
	}
	return false
}

// IsRoleAddress reports a local part that names a function (info@, sales@) rather than a person.
func IsRoleAddress(local string) bool {
	base, _, _ := strings.Cut(strings.ToLower(local), "+")
	return roleLocalParts[base]
}

// FreeMailDomains lists the free-mail domains, for the test DNS server.
func FreeMailDomains() []string { return keys(freemailDomains) }

// DisposableDomains lists the disposable domains, for the test DNS server.
func DisposableDomains() []string { return keys(disposableDomains) }

func keys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	return out
}
