package contact_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/services/leads/internal/domain/contact"
)

func TestParseEmail(t *testing.T) {
	t.Parallel()
	e, err := contact.ParseEmail(" Ann.Lee+crm@Example.COM ")
	require.NoError(t, err)
	require.Equal(t, contact.Email{Local: "Ann.Lee+crm", Domain: "example.com"}, e)

	for _, bad := range []string{"", "ann", "ann@", "@example.com", "ann@example", "Ann <ann@example.com>",
		`"ann lee"@example.com`, "ann@[192.0.2.1]", "ann..lee@example.com", "ann@-example.com", "ann@example.c0m",
		"ann@exa_mple.com", "ann@example.com.", "a@b@example.com"} {
		_, err := contact.ParseEmail(bad)
		require.ErrorIs(t, err, contact.ErrBadEmail, bad)
	}
}

func TestDomainOfURL(t *testing.T) {
	t.Parallel()
	require.Equal(t, "acme.com", contact.DomainOfURL("https://www.Acme.com/contact?x=1"))
	require.Equal(t, "shop.acme.co.uk", contact.DomainOfURL("shop.acme.co.uk:8080"))
	require.Equal(t, "", contact.DomainOfURL("not a site"))
}
