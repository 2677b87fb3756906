// Package domain holds the assistant's rules, with no I/O: recognising what a chat message asks
// and resolving follow-ups from the session's state, sessions and trimming history to a token
// budget, and the public feed's templates and the scrubbing that keeps customer data out of it.
package domain
