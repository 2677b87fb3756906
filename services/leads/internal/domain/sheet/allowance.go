package sheet

import (
	"fmt"
	"time"
)

// Unlimited is what Remaining reports for a plan without a monthly cap: the largest 32-bit
// integer, so that a client comparing remaining with a batch size does the right thing.
const Unlimited = 1<<31 - 1

// Allowance is an account's batch-scoring budget for one calendar month (UTC); the store keys it
// by account and MonthOf.
type Allowance struct {
	used  int
	limit *int // nil: unlimited
}

// ExhaustedError refuses a batch larger than what is left.
type ExhaustedError struct {
	Remaining, Requested int
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("the monthly batch allowance has %d scores left; this batch needs %d", e.Remaining, e.Requested)
}

// MonthOf is the first instant of t's calendar month in UTC, the allowance period key.
func MonthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// RebuildAllowance restores an allowance from storage; limit nil means unlimited.
func RebuildAllowance(used int, limit *int) *Allowance {
	return &Allowance{used: used, limit: limit}
}

// Consume spends n scores, all or nothing: a batch is either scored whole or refused.
func (a *Allowance) Consume(n int) error {
	if a.limit != nil && a.used+n > *a.limit {
		return &ExhaustedError{Remaining: a.Remaining(), Requested: n}
	}
	a.used += n
	return nil
}

// Remaining is what is left this month, or Unlimited.
func (a *Allowance) Remaining() int {
	if a.limit == nil {
		return Unlimited
	}
	return max(*a.limit-a.used, 0)
}

func (a *Allowance) Used() int { return a.used }
