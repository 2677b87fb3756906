module github.com/bizassist/bizassist/services/leads

go 1.26

require github.com/bizassist/bizassist/libs v0.0.0

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/getkin/kin-openapi v0.128.0 // indirect
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/miekg/dns v1.1.62 // indirect
	github.com/nyaruka/phonenumbers v1.4.3 // indirect
	github.com/redis/go-redis/v9 v9.7.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/mod v0.38.0 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/tools v0.48.0 // indirect
	google.golang.org/protobuf v1.36.3 // indirect
)

replace github.com/bizassist/bizassist/libs => ../../libs
