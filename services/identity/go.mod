module github.com/bizassist/bizassist/services/identity

go 1.26

require github.com/bizassist/bizassist/libs v0.0.0

require (
	github.com/alexedwards/argon2id v1.0.0 // indirect
	golang.org/x/crypto v0.14.0 // indirect
	golang.org/x/sys v0.29.0 // indirect
)

replace github.com/bizassist/bizassist/libs => ../../libs
