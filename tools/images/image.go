package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The non-root user every service runs as (the distroless "nonroot" ids).
const (
	UID  = 65532
	Port = "8080/tcp"
)

// Spec is one service image: the compiled static binary and what goes beside it.
type Spec struct {
	Service string
	Binary  string // path of the CGO_ENABLED=0 binary
	CACerts string // PEM bundle installed at /etc/ssl/certs/ca-certificates.crt; empty for none
	Version string // org.opencontainers.image.version
	Arch    string
}

// Entrypoint is where the binary lives in the image; the root Dockerfile uses the same path.
func Entrypoint(service string) string { return "/usr/local/bin/" + service }

// file is one tar entry of the image's only layer.
type file struct {
	path string
	mode int64
	dir  bool
	body []byte
}

// Build assembles the image on an empty base: one layer with the binary, passwd/group naming the
// non-root user and the CA bundle, every timestamp zero, so equal inputs give an equal digest.
func Build(s Spec) (v1.Image, error) {
	bin, err := os.ReadFile(s.Binary)
	if err != nil {
		return nil, fmt.Errorf("read binary: %w", err)
	}
	files := []file{
		{path: "etc/", mode: 0o755, dir: true},
		{path: "etc/passwd", mode: 0o644, body: fmt.Appendf(nil, "nonroot:x:%d:%d:nonroot:/nonexistent:/sbin/nologin\n", UID, UID)},
		{path: "etc/group", mode: 0o644, body: fmt.Appendf(nil, "nonroot:x:%d:\n", UID)},
		{path: "tmp/", mode: 0o1777, dir: true},
		{path: "usr/", mode: 0o755, dir: true},
		{path: "usr/local/", mode: 0o755, dir: true},
		{path: "usr/local/bin/", mode: 0o755, dir: true},
		{path: Entrypoint(s.Service)[1:], mode: 0o755, body: bin},
	}
	if s.CACerts != "" {
		certs, err := os.ReadFile(s.CACerts)
		if err != nil {
			return nil, fmt.Errorf("read CA bundle: %w", err)
		}
		files = append(files,
			file{path: "etc/ssl/", mode: 0o755, dir: true},
			file{path: "etc/ssl/certs/", mode: 0o755, dir: true},
			file{path: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, body: certs})
	}
	layerTar, err := tarFiles(files)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{CreatedBy: "tools/images: " + s.Service + " binary, nonroot user, CA bundle"},
	})
	if err != nil {
		return nil, err
	}
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", s.Arch
	cfg.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cfg.Config = v1.Config{
		Entrypoint:   []string{Entrypoint(s.Service)},
		Cmd:          []string{"serve"},
		User:         fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir:   "/",
		Env:          []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		ExposedPorts: map[string]struct{}{Port: {}},
		Labels: map[string]string{
			"org.opencontainers.image.title":   "bizassist " + s.Service,
			"org.opencontainers.image.version": s.Version,
		},
	}
	return mutate.ConfigFile(img, cfg)
}

func tarFiles(files []file) ([]byte, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: f.mode, ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if f.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
