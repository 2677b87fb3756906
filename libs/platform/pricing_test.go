package platform_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/libs/platform"
	"github.com/bizassist/bizassist/libs/svc"
)

func TestUpgradeURLIsARequiredAbsoluteHTTPSURL(t *testing.T) {
	t.Parallel()
	var p platform.Pricing
	require.NoError(t, svc.LoadConfigFrom(&p, map[string]string{"UPGRADE_URL": "https://bizassist.local/pricing"}))
	require.Equal(t, "https://bizassist.local/pricing", p.UpgradeURL)

	require.ErrorContains(t, svc.LoadConfigFrom(&platform.Pricing{}, map[string]string{}), "UPGRADE_URL")
	for _, bad := range []string{"", "http://bizassist.local/pricing", "/pricing", "bizassist.local/pricing", "https:///pricing", "https://%zz"} {
		require.ErrorContains(t, platform.Pricing{UpgradeURL: bad}.Validate(), "absolute https URL", bad)
	}
}
