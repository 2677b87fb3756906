module github.com/bizassist/bizassist/tools/images

go 1.26

require (
	github.com/google/go-containerregistry v0.20.2
	github.com/stretchr/testify v1.8.1
)

require (
	github.com/containerd/stargz-snapshotter/estargz v0.14.3 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/klauspost/compress v1.16.5 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.0-rc3 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/vbatts/tar-split v0.11.3 // indirect
	golang.org/x/sync v0.2.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
