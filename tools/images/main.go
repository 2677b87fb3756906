// Command images writes the service images without a container engine: for each service an OCI
// image (into one OCI layout, tagged by annotation) and a docker-archive tarball for `kind load
// image-archive`, from binaries built with CGO_ENABLED=0.
//
//	images -bin .cache/images/bin -out .cache/images -tag dev identity leads ...
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func main() {
	bin := flag.String("bin", "", "directory with one binary per service")
	out := flag.String("out", "", "output directory: oci/ (an OCI layout) and <service>.tar")
	tag := flag.String("tag", "dev", "image tag")
	repo := flag.String("repo", "bizassist", "repository prefix: <repo>/<service>:<tag>")
	certs := flag.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA bundle to install (Debian's ca-certificates)")
	arch := flag.String("arch", "amd64", "architecture the binaries were built for")
	flag.Parse()
	if err := run(*bin, *out, *repo, *tag, *certs, *arch, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(bin, out, repo, tag, certs, arch string, services []string) error {
	if bin == "" || out == "" || len(services) == 0 {
		return errors.New("usage: images -bin DIR -out DIR [-tag T] SERVICE [SERVICE]")
	}
	ociDir := filepath.Join(out, "oci")
	if err := os.RemoveAll(ociDir); err != nil {
		return err
	}
	lp, err := layout.Write(ociDir, empty.Index)
	if err != nil {
		return err
	}
	for _, svc := range services {
		img, err := Build(Spec{Service: svc, Binary: filepath.Join(bin, svc), CACerts: certs, Version: tag, Arch: arch})
		if err != nil {
			return fmt.Errorf("%s: %w", svc, err)
		}
		ref, err := name.NewTag(fmt.Sprintf("%s/%s:%s", repo, svc, tag))
		if err != nil {
			return err
		}
		if err := lp.AppendImage(img, layout.WithAnnotations(map[string]string{
			"org.opencontainers.image.ref.name": ref.String(),
		})); err != nil {
			return fmt.Errorf("%s: oci layout: %w", svc, err)
		}
		if err := tarball.WriteToFile(filepath.Join(out, svc+".tar"), ref, img); err != nil {
			return fmt.Errorf("%s: archive: %w", svc, err)
		}
		digest, err := img.Digest()
		if err != nil {
			return err
		}
		fmt.Printf("%s %s\n", ref, digest)
	}
	return nil
}
