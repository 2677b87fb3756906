package contracts_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts/analyticsevents"
	"github.com/bizassist/bizassist/libs/contracts/identityevents"
	"github.com/bizassist/bizassist/libs/contracts/integrationsevents"
	"github.com/bizassist/bizassist/libs/contracts/leadsevents"
	"github.com/bizassist/bizassist/libs/isotime"
)

// The field names on the wire, as the producers' READMEs document them and the consumers decoded
// them before the contracts existed. A contract may gain fields; these may never change.
func TestPayloadFieldNamesAreTheWireNames(t *testing.T) {
	t.Parallel()
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[identityevents.AccountCreatedData]():     "accountId email plan role ownerId businessName ownerName createdAt",
		reflect.TypeFor[identityevents.AccountLoginData]():       "accountId email at",
		reflect.TypeFor[identityevents.AccountPlanChangedData](): "accountId plan previousPlan at",
		reflect.TypeFor[leadsevents.LeadWrittenData]():           "leadId name email phone source businessName timestamp inboundId",
		reflect.TypeFor[integrationsevents.NewLeadData]():        "inboundId name email phone source notes extras",
		reflect.TypeFor[integrationsevents.NewClientData]():      "inboundId businessName email ownerName phone plan",
		reflect.TypeFor[integrationsevents.ContactFormData]():    "inboundId name email phone subject message",
		reflect.TypeFor[integrationsevents.PaymentData]():        "stripeEventId type customerEmail accountId plan status amount subscriptionId cancelAtPeriodEnd endedAt nextAttempt",
		reflect.TypeFor[analyticsevents.HealthCriticalData]():    "clientAccountId email businessName score recommendation at",
		reflect.TypeFor[analyticsevents.UsageRecordedData]():     "eventId accountId feature action count at",
	} {
		var got []string
		for i := range typ.NumField() {
			got = append(got, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
		}
		require.ElementsMatch(t, strings.Fields(want), got, typ.String())
	}
}

func TestPaymentTypesArePrefixedProcessorTypes(t *testing.T) {
	t.Parallel()
	types := integrationsevents.PaymentTypes()
	require.Len(t, types, 7)
	for _, typ := range types {
		require.True(t, strings.HasPrefix(typ, integrationsevents.PaymentPrefix), typ)
		require.Equal(t, integrationsevents.PaymentPrefix+integrationsevents.ProcessorType(typ), typ)
	}
	require.Equal(t, "invoice.payment_failed", integrationsevents.ProcessorType(integrationsevents.PaymentInvoicePaymentFailed))
}

// A payload written before the contracts (Go's own time encoding) still decodes, and a payload
// written now carries the one time format.
func TestPayloadTimesDecodeOldAndWriteTheOneFormat(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 21, 20, 45, 0, 123456789, time.UTC)
	old, err := json.Marshal(map[string]any{"accountId": "acc_1", "email": "a@example.com", "at": at})
	require.NoError(t, err)
	var d identityevents.AccountLoginData
	require.NoError(t, json.Unmarshal(old, &d))
	require.True(t, d.At.Equal(at))

	now, err := json.Marshal(identityevents.AccountLoginData{AccountID: "acc_1", At: isotime.Of(at)})
	require.NoError(t, err)
	require.Contains(t, string(now), `"at":"2026-11-21T20:45:00.123Z"`)
}
