package leadfields_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/contracts/leadsevents/leadfields"
)

func TestInboundReadsTheFieldsAsTheSheetStoresThem(t *testing.T) {
	t.Parallel()
	got := leadfields.Inbound("  Jane   Doe ", "030 1234567 ext. 12", " crm ", "", map[string]string{"country": "DE", "empty": ""})
	require.Equal(t, leadfields.Fields{"name": "Jane Doe", "source": "crm", "phone": "+49301234567;ext=12", "extras.country": "DE"}, got,
		"single spaces, trimmed text, the phone read in the sender's country, empty values absent")
	require.Equal(t, "not a phone", leadfields.Inbound("", "not a phone", "", "", nil)["phone"], "a phone that reads nowhere is kept as given")
}

func TestALaterCopyChangesOnlyWhatItGivesAndDiffers(t *testing.T) {
	t.Parallel()
	stored := leadfields.Fields{"name": "Jane", "phone": "+15124723000", "extras.a": "1"}
	later := leadfields.Fields{"name": "Jane", "phone": "+15124723999", "notes": "call", "extras.a": "2", "source": ""}
	require.Equal(t, []string{"extras.a", "notes", "phone"}, stored.Changes(later))
	require.Equal(t, []string{}, stored.Changes(leadfields.Fields{}), "absent fields blank nothing")
}
