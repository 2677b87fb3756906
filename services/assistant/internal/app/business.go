package app

import (
	"errors"
	"fmt"
	"time"
)

// The caller's business as the owning services report it; field names follow their APIs.

// LeadSearch is a lead-finder request.
type LeadSearch struct {
	Industry string `json:"industry"`
	Location string `json:"location,omitempty"`
	Limit    int    `json:"limit"`
}

type Lead struct {
	BusinessName string `json:"businessName"`
	OwnerName    string `json:"ownerName"`
	Email        string `json:"email"`
	Phone        string `json:"phone"`
	Score        int    `json:"score"`
	Source       string `json:"source"`
}

type LeadResults struct {
	Count int    `json:"count"`
	Leads []Lead `json:"leads"`
}

// SheetLead is a row of the caller's leads sheet.
type SheetLead struct {
	Name         string    `json:"name"`
	BusinessName string    `json:"businessName"`
	Email        string    `json:"email"`
	Source       string    `json:"source"`
	CreatedAt    time.Time `json:"createdAt"`
}

type Health struct {
	Score     int            `json:"score"`
	Tier      string         `json:"tier"`
	Signals   map[string]int `json:"signals"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// FeatureUsage is one feature of analytics' pql-check; Limit means nothing when Unlimited.
type FeatureUsage struct {
	Used      int  `json:"used"`
	Limit     int  `json:"limit"`
	Pct       int  `json:"pct"`
	Unlimited bool `json:"unlimited"`
}

type Usage struct {
	NearLimit    bool                    `json:"nearLimit"`
	UsagePercent int                     `json:"usagePercent"`
	Features     map[string]FeatureUsage `json:"features"`
	UpgradeURL   string                  `json:"upgradeUrl"`
}

type ChurnClient struct {
	Email            string `json:"email"`
	BusinessName     string `json:"businessName"`
	ChurnProbability int    `json:"churnProbability"`
	HealthScore      int    `json:"healthScore"`
	LastLogin        string `json:"lastLogin"`
	Recommendation   string `json:"recommendation"`
}

type Churn struct {
	AtRisk  int           `json:"atRisk"`
	Clients []ChurnClient `json:"clients"`
}

// LeadInput is a lead to qualify or score.
type LeadInput struct {
	Email        string `json:"email"`
	BusinessName string `json:"businessName,omitempty"`
	Phone        string `json:"phone,omitempty"`
}

// Qualification is one lead's quality.
type Qualification struct {
	Score     int      `json:"score"`
	Qualified bool     `json:"qualified"`
	Reasoning string   `json:"reasoning"`
	Signals   []string `json:"signals"`
}

// BatchScores is a lead-quality batch; Remaining means nothing when Unlimited.
type BatchScores struct {
	Scored    int  `json:"scored"`
	Remaining int  `json:"remaining"`
	Unlimited bool `json:"unlimited"`
	Results   []struct {
		Email     string `json:"email"`
		Score     int    `json:"score"`
		Qualified bool   `json:"qualified"`
	} `json:"results"`
}

// ToolError is a tool call the owning service refused or could not answer.
type ToolError struct {
	Tool       string
	Status     int    // HTTP status, 0 when the service could not be reached
	Code       string // the service's error code, if it sent one
	Message    string
	UpgradeURL string
}

func (e *ToolError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: unreachable: %s", e.Tool, e.Message)
	}
	return fmt.Sprintf("%s: %d %s: %s", e.Tool, e.Status, e.Code, e.Message)
}

// PlanRefused reports a tool the caller's plan does not include.
func PlanRefused(err error) (*ToolError, bool) {
	var te *ToolError
	if errors.As(err, &te) && (te.Status == 402 || te.Status == 403) {
		return te, true
	}
	return nil, false
}
