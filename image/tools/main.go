// kmaint-image: the few image operations kmaint's build and tests need, on go-containerregistry's library (the module
// crane is built from), so that no container daemon and no pulled base image is involved.
//
//	kmaint-image build --layout DIR --tag TAG --config FILE LAYER.tar.gz...   an OCI image layout from layer tarballs
//	kmaint-image serve --addr 127.0.0.1:0 --port-file FILE                    an in-memory OCI 1.1 registry (until SIGTERM)
//	kmaint-image push --layout DIR --tag TAG REF                              the layout's image tagged TAG to REF
//	kmaint-image pull --config-out FILE [--platform OS/ARCH] REF              REF's flattened root filesystem as a tar on stdout
//	kmaint-image push-index --tag TAG --out FILE REF LAYOUT...                the layouts' images tagged TAG as one OCI index
//	kmaint-image attach --subject DIGEST --artifact-type T --file F REPO      F as an OCI 1.1 artifact referring to DIGEST
//
// Registries named by an address on loopback are spoken to over plain HTTP (name.Insecure), as the tests' registry is;
// credentials come from the Docker config (~/.docker/config.json, $DOCKER_CONFIG), as crane and docker read them.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// refName is the annotation an OCI layout's index gives an image's tag (image-spec, annotations.md).
const refName = "org.opencontainers.image.ref.name"

func main() {
	log.SetFlags(0)
	log.SetPrefix("kmaint-image: ")
	if len(os.Args) < 2 {
		log.Fatal("usage: kmaint-image build|serve|push|pull ...")
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "serve":
		err = serve(os.Args[2:])
	case "push":
		err = push(os.Args[2:])
	case "pull":
		err = pull(os.Args[2:])
	case "push-index":
		err = pushIndex(os.Args[2:])
	case "attach":
		err = attach(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
}

// imageSpec is what build reads from --config: the runtime config and the manifest's annotations.
type imageSpec struct {
	Config      v1.Config         `json:"config"`
	Created     time.Time         `json:"created"`
	Annotations map[string]string `json:"annotations"`
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	dir := fs.String("layout", "", "OCI layout directory to write (replaced)")
	tag := fs.String("tag", "", "the tag the layout's index gives the image")
	configFile := fs.String("config", "", "JSON: {config, created, annotations}")
	arch := fs.String("arch", "amd64", "the image's architecture (linux/ARCH): amd64 or arm64")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *tag == "" || *configFile == "" || fs.NArg() == 0 {
		return errors.New("build: --layout, --tag, --config and at least one layer are required")
	}
	raw, err := os.ReadFile(*configFile)
	if err != nil {
		return err
	}
	var spec imageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return fmt.Errorf("%s: %w", *configFile, err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	for _, file := range fs.Args() {
		// A .tar.gz is taken as it is (its compressed digest is the blob's), so an unchanged file gives the same layer.
		layer, err := tarball.LayerFromFile(file, tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return fmt.Errorf("layer %s: %w", file, err)
		}
		if img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{Created: v1.Time{Time: spec.Created}, CreatedBy: "kmaint image/build.ts: " + baseName(file)}}); err != nil {
			return err
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.Config = spec.Config
	cf.Created = v1.Time{Time: spec.Created}
	cf.OS, cf.Architecture = "linux", *arch
	switch *arch {
	case "amd64":
	case "arm64":
		// What the kubelet's runtime and docker report for 64-bit ARM (image-spec, config.md: variant).
		cf.Variant = "v8"
	default:
		return fmt.Errorf("build: --arch %q: amd64 or arm64", *arch)
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	img = mutate.Annotations(img, spec.Annotations).(v1.Image)
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	p, err := layout.Write(*dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{refName: *tag})); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Println(digest.String())
	return nil
}

func baseName(path string) string {
	return path[strings.LastIndex(path, "/")+1:]
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	portFile := fs.String("port-file", "", "write the port chosen here once listening")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if *portFile != "" {
		// Written whole and renamed: a reader never sees a partial port.
		if err := os.WriteFile(*portFile+".tmp", []byte(fmt.Sprintf("%d\n", port)), 0o644); err != nil {
			return err
		}
		if err := os.Rename(*portFile+".tmp", *portFile); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "kmaint-image: registry listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)), registry.WithReferrersSupport(true)), ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// reference parses REF, over plain HTTP when its registry is on loopback.
func reference(ref string) (name.Reference, error) {
	opts := []name.Option{name.StrictValidation}
	host := strings.SplitN(ref, "/", 2)[0]
	if strings.HasPrefix(host, "127.0.0.1:") || strings.HasPrefix(host, "localhost:") || strings.HasPrefix(host, "[::1]:") {
		opts = append(opts, name.Insecure)
	}
	return name.ParseReference(ref, opts...)
}

func push(args []string) error {
	fs := flag.NewFlagSet("push", flag.ContinueOnError)
	dir := fs.String("layout", "", "OCI layout directory")
	tag := fs.String("tag", "", "the image's tag in the layout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *tag == "" || fs.NArg() != 1 {
		return errors.New("push: --layout, --tag and one REF are required")
	}
	ref, err := reference(fs.Arg(0))
	if err != nil {
		return err
	}
	index, err := layout.ImageIndexFromPath(*dir)
	if err != nil {
		return err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return err
	}
	for _, desc := range manifest.Manifests {
		if desc.Annotations[refName] != *tag {
			continue
		}
		img, err := index.Image(desc.Digest)
		if err != nil {
			return err
		}
		if err := remote.Write(ref, img, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return err
		}
		fmt.Println(desc.Digest.String())
		return nil
	}
	return fmt.Errorf("no image tagged %q in %s", *tag, *dir)
}

// pulled is what pull writes to --config-out: the manifest's digest and the image's runtime config.
type pulled struct {
	Digest string    `json:"digest"`
	Config v1.Config `json:"config"`
}

func pull(args []string) error {
	fs := flag.NewFlagSet("pull", flag.ContinueOnError)
	configOut := fs.String("config-out", "", "write {digest, config} here")
	platform := fs.String("platform", "", "OS/ARCH[/VARIANT]: the index's image for that platform (default: linux/amd64)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := []remote.Option{remote.WithAuthFromKeychain(authn.DefaultKeychain)}
	if *platform != "" {
		p, err := v1.ParsePlatform(*platform)
		if err != nil {
			return err
		}
		opts = append(opts, remote.WithPlatform(*p))
	}
	if *configOut == "" || fs.NArg() != 1 {
		return errors.New("pull: --config-out and one REF are required")
	}
	ref, err := reference(fs.Arg(0))
	if err != nil {
		return err
	}
	img, err := remote.Image(ref, opts...)
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	out, err := json.Marshal(pulled{Digest: digest.String(), Config: cf.Config})
	if err != nil {
		return err
	}
	if err := os.WriteFile(*configOut, out, 0o644); err != nil {
		return err
	}
	// The layers applied in order, whiteouts honoured: one tar of the root filesystem.
	rc := mutate.Extract(img)
	defer rc.Close()
	_, err = io.Copy(os.Stdout, rc)
	return err
}
