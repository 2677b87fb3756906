package domain_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/apperr"
	"github.com/bizassist/bizassist/services/integrations/internal/domain"
	"github.com/bizassist/bizassist/services/integrations/internal/domain/domaintest"
)

func TestParseInboundAcceptsEachEventWithItsFields(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"new_lead":     `{"event":"new_lead","name":"Jane","email":"jane@example.com","phone":"+1 512 555 0100","source":"zapier","notes":"hi"}`,
		"new_client":   `{"event":"new_client","businessName":"Doe LLC","email":"owner@doe.example","ownerName":"Jo","phone":"1","plan":"growth"}`,
		"contact_form": `{"event":"contact_form","name":"Jane","email":"jane@example.com","subject":"Quote","message":"Call me"}`,
	}
	for event, js := range cases {
		in, err := domain.ParseInbound(domaintest.Body(t, js))
		require.NoError(t, err, event)
		require.Equal(t, domain.InboundEvent(event), in.Event)
		require.NotContains(t, in.Fields, "event")
		require.Equal(t, len(domaintest.Body(t, js))-1, len(in.Fields))
	}
}

func TestParseInboundRejectsBadInputNamingTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, js, code, field string
	}{
		{"no event", `{"name":"x","email":"a@b.co"}`, apperr.CodeMissingField, "event"},
		{"event not a string", `{"event":7,"name":"x","email":"a@b.co"}`, apperr.CodeInvalidType, "event"},
		{"unknown event", `{"event":"new_order","name":"x","email":"a@b.co"}`, apperr.CodeInvalidField, "event"},
		{"missing required", `{"event":"new_lead","email":"a@b.co"}`, apperr.CodeMissingField, "name"},
		{"empty required", `{"event":"new_client","businessName":"  ","email":"a@b.co"}`, apperr.CodeMissingField, "businessName"},
		{"non-string field", `{"event":"new_lead","name":"x","email":"a@b.co","phone":5125550100}`, apperr.CodeInvalidType, "phone"},
		{"null field", `{"event":"new_lead","name":null,"email":"a@b.co"}`, apperr.CodeInvalidType, "name"},
		{"extra too long", `{"event":"new_lead","name":"x","email":"a@b.co","comment":"` + strings.Repeat("y", domain.MaxExtraValueChars+1) + `"}`, apperr.CodeInvalidField, "comment"},
		{"extra name too long", `{"event":"new_lead","name":"x","email":"a@b.co","` + strings.Repeat("k", domain.MaxExtraKeyLength+1) + `":"y"}`, apperr.CodeInvalidField, strings.Repeat("k", domain.MaxExtraKeyLength+1)},
		{"too many extras", `{"event":"new_lead","name":"x","email":"a@b.co",` + extras(domain.MaxExtras+1) + `}`, apperr.CodeInvalidField, fmt.Sprintf("x%02d", domain.MaxExtras)},
		{"bad email", `{"event":"contact_form","name":"x","email":"not an email"}`, apperr.CodeInvalidField, "email"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.ParseInbound(domaintest.Body(t, tc.js))
			var e *apperr.Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, apperr.KindInvalid, e.Kind)
			require.Equal(t, tc.code, e.Code)
			require.Equal(t, tc.field, e.Field)
		})
	}
}

// extras is n extra string fields x00, x01, ... as JSON members.
func extras(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(`"x%02d":"v"`, i)
	}
	return strings.Join(parts, ",")
}

func TestParseInboundKeepsWhatSendersAdd(t *testing.T) {
	t.Parallel()
	in, err := domain.ParseInbound(domaintest.Body(t, `{"event":"new_lead","name":"Jane","email":"jane@example.com",
		"businessName":"Doe LLC","utm_source":" spring ","zip":78701,"consent":true,"page":null,"answers":{"a": [1, "}"]},"tags":["vip","hot"],`+extras(domain.MaxExtras-6)+`}`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"name": "Jane", "email": "jane@example.com"}, in.Fields)
	require.Equal(t, "Doe LLC", in.Extras["businessName"], "another event's field is an extra here")
	require.Equal(t, "spring", in.Extras["utm_source"])
	require.Equal(t, "78701", in.Extras["zip"])
	require.Equal(t, "true", in.Extras["consent"])
	require.NotContains(t, in.Extras, "page")
	// Issue 26 finding 3: nested fields were dropped; they are kept as compact JSON.
	require.Equal(t, `{"a":[1,"}"]}`, in.Extras["answers"])
	require.Equal(t, `["vip","hot"]`, in.Extras["tags"])
	require.Len(t, in.Extras, domain.MaxExtras)
}

func TestParseInboundBoundsNestedExtras(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body string
		want string // the kept text, or "" for a 400 naming the field
	}{
		{`{"address":{"city":"Austin","zip":"78701"}}`, `{"city":"Austin","zip":"78701"}`},
		{`{"address":[[[{"a":1}]]]}`, `[[[{"a":1}]]]`},
		{`{"address":[[[[{"a":1}]]]]}`, ""},
		{`{"address":["` + strings.Repeat("x", domain.MaxExtraValueChars) + `"]}`, ""},
		{`{"address":{"note":"\"[[[[[\""}}`, `{"note":"\"[[[[[\""}`},
	} {
		body := `{"event":"new_lead","name":"Jane","email":"jane@example.com",` + c.body[1:]
		in, err := domain.ParseInbound(domaintest.Body(t, body))
		if c.want == "" {
			var ae *apperr.Error
			require.ErrorAs(t, err, &ae, c.body)
			require.Equal(t, "address", ae.Field, c.body)
			continue
		}
		require.NoError(t, err, c.body)
		require.Equal(t, c.want, in.Extras["address"], c.body)
	}
}

func TestSamplesParseAsValidEvents(t *testing.T) {
	t.Parallel()
	for _, e := range domain.InboundEvents() {
		raw, err := json.Marshal(domain.Sample(e))
		require.NoError(t, err)
		in, err := domain.ParseInbound(domaintest.Body(t, string(raw)))
		require.NoError(t, err)
		require.Equal(t, e, in.Event)
	}
}
