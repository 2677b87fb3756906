package health

import "math"

// The churn model is a logistic regression over the signals scaled to 0-1:
//
//	p = 1 / (1 + exp(-(ChurnIntercept + Σ ChurnCoefficients[s] * signal_s/100)))
//
// The coefficients are set by hand from the same reasoning as the weights (recency of use and
// payment trouble matter most) and published in the README; they are to be refitted from observed
// cancellations once there are enough. With every signal at 0 the probability is 95%, at 50 it
// is 21%, at 100 it is under 1%.
const ChurnIntercept = 3.0

var ChurnCoefficients = map[Signal]float64{
	LoginRecency:    -2.0,
	LoginFrequency:  -1.2,
	FeatureAdoption: -0.9,
	ChatEngagement:  -0.6,
	LeadActivity:    -0.7,
	UsageTrend:      -0.8,
	PlanUtilisation: -0.3,
	IntegrationUse:  -0.3,
	PaymentHealth:   -1.5,
	Tenure:          -0.4,
}

// ChurnProbability is the model's probability of churn, in whole percent.
func ChurnProbability(v Values) int {
	z := ChurnIntercept
	for s, c := range ChurnCoefficients {
		z += c * float64(v[s]) / 100
	}
	return int(math.Round(100 / (1 + math.Exp(-z))))
}
