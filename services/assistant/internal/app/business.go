package app

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/bizassist/bizassist/services/assistant/internal/domain"
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

// Signal is one health signal, its 0-100 sub-score, and what it is called and what lifts it.
type Signal struct {
	Name, Label, Tip string
	Value            int
}

// signalAdvice is each of analytics' ten signals in words, and what lifts it.
var signalAdvice = map[string][2]string{
	"loginRecency":    {"login recency", "log in a few times a week; even a quick look at new leads counts"},
	"loginFrequency":  {"login frequency", "make checking your dashboard a weekly habit"},
	"featureAdoption": {"feature adoption", "try lead scoring on your sheet and connect the webhook integration"},
	"chatEngagement":  {"chat engagement", "ask me for next steps once a week"},
	"leadActivity":    {"lead activity", "run a lead search for your best industry and city"},
	"usageTrend":      {"usage trend", "use the platform steadily rather than in bursts"},
	"planUtilisation": {"plan utilisation", "put more of your plan's allowance to work on searches and scoring"},
	"integrationUse":  {"integration use", "send your website's contact form to the inbound webhook"},
	"paymentHealth":   {"payment health", "check that your card is current so service is not interrupted"},
	"tenure":          {"tenure", "this one grows by itself as you stay with us"},
}

func signal(name string, value int) Signal {
	if t, ok := signalAdvice[name]; ok {
		return Signal{Name: name, Label: t[0], Tip: t[1], Value: value}
	}
	return Signal{Name: name, Label: name, Tip: "use the features behind it more often", Value: value}
}

// Weakest is the signals weakest first; ties by name keep answers stable.
func (h Health) Weakest() []Signal {
	out := make([]Signal, 0, len(h.Signals))
	for n, v := range h.Signals {
		out = append(out, signal(n, v))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Value != out[j].Value {
			return out[i].Value < out[j].Value
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Nearest is the features by how close they are to their limit, capped ones first.
func (u Usage) Nearest() []string {
	m := u.Features
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := m[names[i]], m[names[j]]
		if a.Unlimited != b.Unlimited {
			return b.Unlimited
		}
		if a.Pct != b.Pct {
			return a.Pct > b.Pct
		}
		if a.Used != b.Used {
			return a.Used > b.Used
		}
		return names[i] < names[j]
	})
	return names
}

// rankLeads is a copy of leads, best score first, in search order among equals.
func rankLeads(leads []domain.LeadRef) []domain.LeadRef {
	out := append([]domain.LeadRef(nil), leads...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}
