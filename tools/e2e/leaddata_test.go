package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 26 findings 1 and 2 through the ingress: a CRM sends a lead with a name only, then again
// (the email in capitals) with a German phone in 00 form, notes and a source. The reply names the
// fields the repeat changes and the sheet keeps them; a phone no region reads is named in a
// warning and kept as given.
func TestRepeatInboundLeadUpdatesTheSheet(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.26.1")
	token := s.Token(t, s.Get(t, "DEMO_GROWTH_EMAIL"))
	secret := extSecret(s.Get(t, "EXT_SECRET"))
	email := uniqueEmail(t)

	first := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{
		"event": "new_lead", "name": "Ann Repeat", "email": email,
	}, secret).Expect(t, http.StatusOK)
	require.Equal(t, false, first.JSON["merged"])
	require.NotContains(t, first.JSON, "changed")

	again := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{
		"event": "new_lead", "name": "Ann Repeat", "email": strings.ToUpper(email),
		"phone": "0049 30 1234567", "notes": "call after 5", "source": "crm",
	}, secret).Expect(t, http.StatusOK)
	require.Equal(t, true, again.JSON["merged"])
	require.Equal(t, first.JSON["serviceId"], again.JSON["serviceId"])
	require.Equal(t, []any{"notes", "phone", "source"}, again.JSON["changed"])
	require.NotContains(t, again.JSON, "warnings")

	eventually(t, "the repeat's fields on the sheet", func() bool {
		lead := sheetLead(t, c, token, email)
		return lead["phone"] == "+49301234567" && lead["notes"] == "call after 5" &&
			lead["source"] == "crm" && lead["name"] == "Ann Repeat"
	})

	unread := uniqueEmail(t)
	r := c.Do(t, http.MethodPost, "/api/ext-webhook", "", map[string]string{
		"event": "new_lead", "name": "Bo Raw", "email": unread, "phone": "030 1234567",
	}, secret).Expect(t, http.StatusOK)
	warnings, _ := r.JSON["warnings"].([]any)
	require.Len(t, warnings, 1)
	require.Equal(t, "phone", warnings[0].(map[string]any)["field"])
	eventually(t, "the unread phone kept as given", func() bool {
		lead := sheetLead(t, c, token, unread)
		return lead["phone"] == "" && lead["phoneRaw"] == "030 1234567"
	})
}
