package domain

import "time"

// DemoFeed is the static set the public feed shows when no live event is in the window, dated
// relative to now so that it reads like a live feed.
func DemoFeed(now time.Time) []FeedEvent {
	demo := []struct {
		module, eventType, summary string
		ago                        time.Duration
	}{
		{"Voice", "MissedCallDetected", "Missed call detected at a plumbing business; a text-back went out", 2 * time.Minute},
		{"Recall", "CustomerReplyReceived", "Customer replied: “Yes, Thursday morning works for me”", 6 * time.Minute},
		{"Confirm", "AppointmentCreated", "Appointment booked for a dental cleaning", 11 * time.Minute},
		{"Stars", "ReviewReceived", "New 5-star review received", 19 * time.Minute},
		{"the service", "LeadCaptured", "New roofing lead captured from organic search", 27 * time.Minute},
		{"Chat", "ChatConversation", "An owner asked the assistant about next growth steps", 34 * time.Minute},
		{"Invoicing", "InvoicePaid", "Invoice paid ($240)", 48 * time.Minute},
		{"Voice", "CallAnswered", "AI receptionist answered a call (3 min 12 s)", 63 * time.Minute},
	}
	out := make([]FeedEvent, len(demo))
	base := now.UTC().Truncate(time.Millisecond)
	for i, d := range demo {
		out[i] = FeedEvent{Module: d.module, EventType: d.eventType, Summary: d.summary, At: base.Add(-d.ago)}
	}
	return out
}
