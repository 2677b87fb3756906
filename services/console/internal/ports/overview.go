package ports

import (
	"net/http"

	"github.com/bizassist/bizassist/services/console/internal/app"
)

// overviewData is the Overview's template data.
type overviewData struct {
	app.Overview
	Step struct{ Text, Href string } // the next step in words, and its link
}

func (h *Web) overview(w http.ResponseWriter, r *http.Request, s *signedIn) {
	o, err := h.App.Overview.Handle(r.Context(), s.sess)
	if h.ended(w, r, s, err) {
		return
	}
	v := signedView(s, "Overview", "Overview")
	v.Plan = o.Plan
	d := overviewData{Overview: o}
	switch o.NextStep {
	case app.StepUpgrade:
		d.Step.Text, d.Step.Href = "You are near a limit of your plan: upgrade", o.Usage.UpgradeURL
	case app.StepFindLeads:
		d.Step.Text, d.Step.Href = "Find your first leads", "/leads#finder"
	default:
		d.Step.Text, d.Step.Href = "Connect your tools with an API key", "/keys"
	}
	v.D = d
	h.page(w, r, http.StatusOK, "overview", v)
}
