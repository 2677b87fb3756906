// Package setting states what a setting's value must be, one setting per error, so that a
// process refusing to start names each setting that is wrong and the value it was given.
package setting

import "fmt"

// number is what settings count or measure in (time.Duration is an int64).
type number interface {
	~int | ~int32 | ~int64 | ~uint32 | ~float64
}

// Positive is the error for setting name unless its value v is above zero.
func Positive[T number](name string, v T) error {
	if v > 0 {
		return nil
	}
	return fmt.Errorf("%s must be positive, not %v", name, v)
}

// NotNegative is the error for setting name unless its value v is zero or more.
func NotNegative[T number](name string, v T) error {
	if v >= 0 {
		return nil
	}
	return fmt.Errorf("%s must not be negative, not %v", name, v)
}

// Min is the error for setting name unless its value v is at least floor.
func Min[T number](name string, v, floor T) error {
	if v >= floor {
		return nil
	}
	return fmt.Errorf("%s must be at least %v, not %v", name, floor, v)
}

// AtLeast is the error for setting name unless its value v is at least other's, floor.
func AtLeast[T number](name string, v T, other string, floor T) error {
	if v >= floor {
		return nil
	}
	return fmt.Errorf("%s (%v) must be at least %s (%v)", name, v, other, floor)
}
