module github.com/bizassist/bizassist/services/assistant

go 1.26

require github.com/bizassist/bizassist/libs v0.0.0

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/getkin/kin-openapi v0.128.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/openai/openai-go v0.1.0-alpha.61 // indirect
	github.com/pkoukk/tiktoken-go v0.1.7 // indirect
	github.com/pkoukk/tiktoken-go-loader v0.0.2 // indirect
	github.com/redis/go-redis/v9 v9.7.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/tidwall/gjson v1.14.4 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	golang.org/x/text v0.41.0 // indirect
)

replace github.com/bizassist/bizassist/libs => ../../libs
