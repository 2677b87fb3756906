package health

import (
	"errors"
	"fmt"
	"math"
)

// ChurnModel is a logistic regression over the signals scaled to 0-1:
//
//	p = 1 / (1 + exp(-(Intercept + Σ Coefficients[s] * signal_s/100)))
type ChurnModel struct {
	Intercept    float64
	Coefficients map[Signal]float64
}

// DefaultChurnModel is set by hand from the same reasoning as the weights (recency of use and
// payment trouble matter most) and published in the README. With every signal at 0 the
// probability is 95%, at 50 it is 21%, at 100 under 1%. FitChurn replaces it once enough
// cancellations have been observed.
var DefaultChurnModel = ChurnModel{
	Intercept: 3.0,
	Coefficients: map[Signal]float64{
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
	},
}

// Probability is the model's probability of churn, in whole percent.
func (m ChurnModel) Probability(v Values) int {
	return int(math.Round(100 * m.p(v)))
}

func (m ChurnModel) p(v Values) float64 {
	z := m.Intercept
	for s, c := range m.Coefficients {
		z += c * float64(v[s]) / 100
	}
	return 1 / (1 + math.Exp(-z))
}

// ChurnSample is one account's signals some time before it cancelled, or did not.
type ChurnSample struct {
	Signals Values
	Churned bool
}

// MinChurnClass is how many accounts of each outcome a fit needs: fewer, and the published
// model is better than what the data can say.
const MinChurnClass = 30

// Fitting settings: a small L2 penalty keeps the system solvable when signals move together;
// Newton's method on this convex loss converges in a few iterations.
const (
	fitL2         = 1e-3
	fitIterations = 25
	fitTolerance  = 1e-8
)

// ErrTooFewChurnSamples means the data cannot support a fit yet.
var ErrTooFewChurnSamples = errors.New("too few churned or retained accounts to fit the churn model")

// FitChurn fits a logistic regression to samples by Newton's method (iteratively reweighted
// least squares) on the mean log loss plus an L2 penalty on the coefficients.
func FitChurn(samples []ChurnSample) (ChurnModel, error) {
	churned := 0
	for _, s := range samples {
		if s.Churned {
			churned++
		}
	}
	if churned < MinChurnClass || len(samples)-churned < MinChurnClass {
		return ChurnModel{}, fmt.Errorf("%w: %d churned and %d retained, need %d of each",
			ErrTooFewChurnSamples, churned, len(samples)-churned, MinChurnClass)
	}
	k := len(Signals) + 1 // the intercept is the last column
	x := make([][]float64, len(samples))
	y := make([]float64, len(samples))
	for i, s := range samples {
		x[i] = make([]float64, k)
		for j, sig := range Signals {
			x[i][j] = float64(s.Signals[sig]) / 100
		}
		x[i][k-1] = 1
		if s.Churned {
			y[i] = 1
		}
	}
	n := float64(len(samples))
	w := make([]float64, k)
	for range fitIterations {
		grad := make([]float64, k)
		hess := make([][]float64, k)
		for j := range hess {
			hess[j] = make([]float64, k)
		}
		for i, xi := range x {
			var z float64
			for j := range w {
				z += w[j] * xi[j]
			}
			p := 1 / (1 + math.Exp(-z))
			d, h := p-y[i], p*(1-p)
			for a := range k {
				grad[a] += d * xi[a] / n
				for b := range k {
					hess[a][b] += h * xi[a] * xi[b] / n
				}
			}
		}
		for j := range k - 1 { // the intercept is not penalised
			grad[j] += fitL2 * w[j]
			hess[j][j] += fitL2
		}
		step, err := solve(hess, grad)
		if err != nil {
			return ChurnModel{}, err
		}
		var size float64
		for j := range w {
			w[j] -= step[j]
			size = math.Max(size, math.Abs(step[j]))
		}
		if size < fitTolerance {
			break
		}
	}
	m := ChurnModel{Intercept: w[k-1], Coefficients: make(map[Signal]float64, k-1)}
	for j, sig := range Signals {
		m.Coefficients[sig] = w[j]
	}
	return m, nil
}

// solve returns x with a·x = b by Gaussian elimination with partial pivoting; a and b are
// overwritten.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	for c := range n {
		pivot := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[pivot][c]) {
				pivot = r
			}
		}
		if math.Abs(a[pivot][c]) < 1e-12 {
			return nil, errors.New("churn fit: singular system")
		}
		a[c], a[pivot] = a[pivot], a[c]
		b[c], b[pivot] = b[pivot], b[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for j := c; j < n; j++ {
				a[r][j] -= f * a[c][j]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		sum := b[r]
		for j := r + 1; j < n; j++ {
			sum -= a[r][j] * x[j]
		}
		x[r] = sum / a[r][r]
	}
	return x, nil
}
