package app

// Application is the assistant's use cases, one field each: what its ports call.
type Application struct {
	Chat    *Chat
	Seed    *SeedFeed
	Feed    *PublicFeed
	Record  *RecordFeedEvent
	Account *RecordAccount
}
