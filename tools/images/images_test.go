package main

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/stretchr/testify/require"
)

// maxCompressed bounds each image: one static Go binary and a CA bundle, nothing else.
const maxCompressed = 40 << 20

var services = []string{"identity", "leads", "assistant", "analytics", "integrations", "console"}

// layerFiles reads the image's files (path -> content) from its layers.
func layerFiles(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	layers, err := img.Layers()
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		require.NoError(t, err)
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			require.Zero(t, h.Uid, "%s is owned by root, not writable by the service", h.Name)
			body, err := io.ReadAll(tr)
			require.NoError(t, err)
			files["/"+strings.TrimSuffix(h.Name, "/")] = body
		}
		require.NoError(t, rc.Close())
	}
	return files
}

// requireRunnable checks what the kubelet relies on: the entrypoint exists in the image, the
// user is not root and has a passwd entry, the config asks for serve.
func requireRunnable(t *testing.T, img v1.Image, svc string) map[string][]byte {
	t.Helper()
	cfg, err := img.ConfigFile()
	require.NoError(t, err)
	require.Equal(t, []string{"/usr/local/bin/" + svc}, cfg.Config.Entrypoint)
	require.Equal(t, []string{"serve"}, cfg.Config.Cmd)
	uid, err := strconv.Atoi(strings.Split(cfg.Config.User, ":")[0])
	require.NoError(t, err, "user %q must be numeric so runAsNonRoot can verify it", cfg.Config.User)
	require.NotZero(t, uid)
	files := layerFiles(t, img)
	require.Contains(t, files, cfg.Config.Entrypoint[0])
	require.Contains(t, string(files["/etc/passwd"]), ":"+strconv.Itoa(uid)+":")
	return files
}

func TestBuildIsReproducibleAndNonRoot(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "leads")
	require.NoError(t, os.WriteFile(bin, []byte("not really a binary"), 0o755))
	certs := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(certs, []byte("-----BEGIN CERTIFICATE-----\n"), 0o644))

	spec := Spec{Service: "leads", Binary: bin, CACerts: certs, Version: "dev", Arch: "amd64"}
	a, err := Build(spec)
	require.NoError(t, err)
	b, err := Build(spec)
	require.NoError(t, err)
	da, _ := a.Digest()
	db, _ := b.Digest()
	require.Equal(t, da, db, "the same inputs must give the same image")

	files := requireRunnable(t, a, "leads")
	require.Equal(t, "not really a binary", string(files["/usr/local/bin/leads"]))
	require.Contains(t, files, "/etc/ssl/certs/ca-certificates.crt")

	spec.Version = "other"
	c, err := Build(spec)
	require.NoError(t, err)
	dc, _ := c.Digest()
	require.NotEqual(t, da, dc)
}

func TestBuildRefusesMissingBinary(t *testing.T) {
	_, err := Build(Spec{Service: "leads", Binary: filepath.Join(t.TempDir(), "nope"), Arch: "amd64"})
	require.ErrorContains(t, err, "read binary")
}

// TestBuiltImages checks the images `make images` wrote (IMAGES_DIR): every service is there,
// runnable as non-root, its binary static (no ELF interpreter, so it runs on an empty base), and
// the image under the size bound.
func TestBuiltImages(t *testing.T) {
	dir := os.Getenv("IMAGES_DIR")
	if dir == "" {
		t.Skip("IMAGES_DIR is unset; `make images-test` builds the images and sets it")
	}
	lp, err := layout.FromPath(filepath.Join(dir, "oci"))
	require.NoError(t, err)
	idx, err := lp.ImageIndex()
	require.NoError(t, err)
	manifest, err := idx.IndexManifest()
	require.NoError(t, err)
	byRef := map[string]v1.Hash{}
	for _, d := range manifest.Manifests {
		byRef[d.Annotations["org.opencontainers.image.ref.name"]] = d.Digest
	}
	for _, svc := range services {
		t.Run(svc, func(t *testing.T) {
			var digest v1.Hash
			for ref, d := range byRef {
				if strings.HasPrefix(ref, "bizassist/"+svc+":") {
					digest = d
				}
			}
			require.NotEmpty(t, digest.Hex, "no image for %s in %s", svc, dir)
			img, err := idx.Image(digest)
			require.NoError(t, err)
			files := requireRunnable(t, img, svc)

			exe, err := elf.NewFile(bytes.NewReader(files["/usr/local/bin/"+svc]))
			require.NoError(t, err, "the entrypoint is not an ELF binary")
			for _, p := range exe.Progs {
				require.NotEqual(t, elf.PT_INTERP, p.Type, "dynamically linked: build with CGO_ENABLED=0")
			}

			layers, err := img.Layers()
			require.NoError(t, err)
			var size int64
			for _, l := range layers {
				n, err := l.Size()
				require.NoError(t, err)
				size += n
			}
			require.Less(t, size, int64(maxCompressed), "image is %d MiB", size>>20)
		})
	}
}
