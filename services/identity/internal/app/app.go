package app

// Application is identity's use cases, one field each: what its ports and its command line call.
type Application struct {
	Login          *Login
	Verify         *VerifyToken
	SignUp         *SignUp
	ChangePassword *ChangePassword
	CreateKey      *CreateAPIKey
	ListKeys       *ListAPIKeys
	DeleteKey      *DeleteAPIKey
	ExchangeKey    *ExchangeAPIKey
	InviteClient   *InviteClient
	AcceptInvite   *AcceptInvitation
	ListClients    *ListClients
	RecordHealth   *RecordHealth
	CreateAccount  *CreateAccount
	SetPlan        *SetPlan
	SetPassword    *SetPassword
	Disable        *Disable
	CreateClient   *CreateClient
	ApplyPayment   *ApplyPayment
	// The operators' command line: finding and listing accounts, and the signing keys.
	FindAccount        *FindAccount
	ListAccounts       *ListAccounts
	ListSigningKeys    *ListSigningKeys
	RotateSigningKey   *RotateSigningKey
	ResealSigningKeys  *ResealSigningKeys
	WithdrawSigningKey *WithdrawSigningKey
}
