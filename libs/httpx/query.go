package httpx

import (
	"net/url"
	"strconv"

	"github.com/bizassist/bizassist/libs/apperr"
)

// QueryInt reads the optional integer query parameter name of q into dst, leaving dst as it is
// when the parameter is absent. Given empty, more than once or not an integer, it is a 400
// naming the parameter: "?limit=" is not the default, it is a mistake to point out.
func QueryInt(q url.Values, name string, dst *int) error {
	vals, ok := q[name]
	if !ok {
		return nil
	}
	n, err := strconv.Atoi(vals[0])
	if err != nil || len(vals) > 1 {
		return &apperr.Error{Kind: apperr.KindInvalid, Code: apperr.CodeInvalidType, Field: name,
			Message: name + ": must be an integer, given once"}
	}
	*dst = n
	return nil
}

// Optional is the value of an optional string member, "" when it is absent. Given empty, it is a
// 400 naming it: an empty value is not a value the documents allow, and a client that sends one
// means something this API would otherwise guess at.
func Optional(name string, v *string) (string, error) {
	switch {
	case v == nil:
		return "", nil
	case *v == "":
		return "", apperr.InvalidField(name, "must not be empty; leave it out instead")
	}
	return *v, nil
}
