// Package leadfields is leads' rule for a lead's fields: how the sheet stores them and what a
// later copy of a lead changes. Leads' sheet applies it, and integrations reads it to answer a
// repeated inbound lead before leads has consumed it; it sits apart from leadsevents so that the
// consumers of lead.written do not link the phone library.
package leadfields

import (
	"maps"
	"slices"
	"strings"

	"github.com/bizassist/bizassist/libs/phone"
)

// Fields is a lead as leads' sheet row holds it, by the sheet's field names: name,
// businessName, source, notes, phone (Phone.Field) and each extra as "extras.<key>"; an empty
// value is absent. The sheet merges a repeated lead by it (services/leads/internal/domain/sheet).
type Fields map[string]string

// Changes are the fields a later copy of the lead changes: each that later gives a value that
// differs; an absent one blanks nothing. Sorted.
func (f Fields) Changes(later Fields) []string {
	changed := []string{}
	for k, v := range later {
		if v != "" && f[k] != v {
			changed = append(changed, k)
		}
	}
	slices.Sort(changed)
	return changed
}

// WebhookSource is the source of an inbound lead that names none.
const WebhookSource = "webhook"

// Name is a name as the sheet stores it: words separated by single spaces.
func Name(s string) string { return strings.Join(strings.Fields(s), " ") }

// Phone is a lead's phone as the sheet stores it: E.164 and extension, or the text as
// given when it does not read.
type Phone struct{ E164, Extension, Raw string }

// ReadPhone reads text in the first of regions where it is valid (libs/phone); one that reads
// nowhere is kept as given.
func ReadPhone(text string, regions ...string) Phone {
	text = strings.TrimSpace(text)
	if text == "" {
		return Phone{}
	}
	if n, err := phone.Parse(text, regions...); err == nil {
		return Phone{E164: n.E164, Extension: n.Extension}
	}
	return Phone{Raw: text}
}

// Field is the phone as one field: a readable number replaces a raw one and the other way round.
func (p Phone) Field() string {
	switch {
	case p.E164 != "" && p.Extension != "":
		return p.E164 + ";ext=" + p.Extension
	case p.E164 != "":
		return p.E164
	}
	return p.Raw
}

// Inbound is the fields an inbound new_lead gives its lead on the sheet: a national phone
// number is read in the region its extras name (phone.RegionHints), then the US.
func Inbound(name, phoneText, source, notes string, extras map[string]string) Fields {
	f := Fields{"name": Name(name), "source": strings.TrimSpace(source), "notes": strings.TrimSpace(notes),
		"phone": ReadPhone(phoneText, phone.RegionHints(extras)...).Field()}
	for k, v := range extras {
		f["extras."+k] = v
	}
	maps.DeleteFunc(f, func(_, v string) bool { return v == "" })
	return f
}
