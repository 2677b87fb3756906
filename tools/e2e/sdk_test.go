package e2e

import (
	"context"
	"net/http"
	"testing"

	openapi_types "github.com/oapi-codegen/runtime/types"
	"github.com/stretchr/testify/require"

	"github.com/bizassist/bizassist/tools/sdk/bizassist"
)

// A client generated from the published document (tools/sdk/bizassist, oapi-codegen with its
// default settings) works as an integrator would use it: sign in, search leads, subscribe a
// hook and unsubscribe it. Source address: 127.0.20.6.
func TestTheGeneratedGoClientWorks(t *testing.T) {
	s := UseStack(t)
	c := s.Client(t, "127.0.20.6")
	api, err := bizassist.NewClientWithResponses(s.BaseURL, bizassist.WithHTTPClient(c.hc))
	require.NoError(t, err)
	ctx := context.Background()

	var signIn bizassist.AuthRequest
	require.NoError(t, signIn.FromLoginRequest(bizassist.LoginRequest{
		Email: openapi_types.Email(s.Get(t, "DEMO_GROWTH_EMAIL")), Password: s.Get(t, "DEMO_PASSWORD")}))
	auth, err := api.AuthWithResponse(ctx, nil, signIn)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, auth.StatusCode(), "sign-in through the SDK: %s", auth.Body)
	login, err := auth.JSON200.AsLoginResponse()
	require.NoError(t, err)
	require.NotEmpty(t, login.Token)
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+login.Token)
		return nil
	}

	location, limit := "Austin, TX", 3
	found, err := api.LeadFinderWithResponse(ctx, nil, bizassist.LeadFinderJSONRequestBody{
		Industry: "plumbing", Location: &location, Limit: &limit}, bearer)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, found.StatusCode(), "lead-finder through the SDK: %s", found.Body)
	require.NotEmpty(t, found.JSON200.Leads)

	sub, err := api.SubscribeWithResponse(ctx, nil, bizassist.SubscribeJSONRequestBody{
		HookUrl: "https://example.com/e2e-sdk", Event: bizassist.OutboundEventTypeNewLead}, bearer)
	require.NoError(t, err)
	require.Contains(t, []int{http.StatusCreated, http.StatusOK}, sub.StatusCode(), "subscribe through the SDK: %s", sub.Body)
	id := ""
	if sub.JSON201 != nil {
		id = sub.JSON201.Id
	} else if sub.JSON200 != nil {
		id = sub.JSON200.Id
	}
	require.NotEmpty(t, id)
	// Left in place, the demo account's every lead would go to a host that does not resolve, and
	// the fault case's deliveries after this suite (make test-scale) would queue behind its retries.
	gone, err := api.UnsubscribeWithResponse(ctx, id, nil, bearer)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, gone.StatusCode(), "unsubscribe through the SDK: %s", gone.Body)
}
