// The release's commands: one OCI index over the per-architecture images, and artifacts (the SBOM) attached to it as
// OCI 1.1 referrers (a manifest whose subject is the index), which registries list under /v2/<name>/referrers/<digest>.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// pushedIndex is what push-index writes to --out: the index's digest and each platform's manifest digest.
type pushedIndex struct {
	Digest    string          `json:"digest"`
	MediaType types.MediaType `json:"mediaType"`
	Manifests []pushedImage   `json:"manifests"`
}

type pushedImage struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
}

// imageTagged is the layout's image whose ref.name annotation is tag.
func imageTagged(dir, tag string) (v1.Image, error) {
	index, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, desc := range manifest.Manifests {
		if desc.Annotations[refName] == tag {
			return index.Image(desc.Digest)
		}
	}
	return nil, fmt.Errorf("no image tagged %q in %s", tag, dir)
}

func pushIndex(args []string) error {
	fs := flag.NewFlagSet("push-index", flag.ContinueOnError)
	tag := fs.String("tag", "", "the image's tag in each layout")
	out := fs.String("out", "", "write {digest, mediaType, manifests} here")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tag == "" || *out == "" || fs.NArg() < 2 {
		return errors.New("push-index: --tag, --out, one REF and at least one LAYOUT are required")
	}
	ref, err := reference(fs.Arg(0))
	if err != nil {
		return err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	result := pushedIndex{MediaType: types.OCIImageIndex}
	for _, dir := range fs.Args()[1:] {
		img, err := imageTagged(dir, *tag)
		if err != nil {
			return err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return err
		}
		digest, err := img.Digest()
		if err != nil {
			return err
		}
		platform := v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}
		for _, seen := range result.Manifests {
			if seen.Platform == platform.String() {
				return fmt.Errorf("push-index: two images for %s", seen.Platform)
			}
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &platform}})
		result.Manifests = append(result.Manifests, pushedImage{Platform: platform.String(), Digest: digest.String()})
	}
	if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return err
	}
	result.Digest = digest.String()
	raw, err := json.Marshal(result)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, raw, 0o644)
}

// emptyConfig is the OCI empty descriptor's content: the config of an artifact that has none (image-spec 1.1).
var emptyConfig = []byte("{}")

// rawManifest is a manifest pushed as the bytes given (remote.Taggable).
type rawManifest struct {
	body      []byte
	mediaType types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.body, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mediaType, nil }

func attach(args []string) error {
	fs := flag.NewFlagSet("attach", flag.ContinueOnError)
	subject := fs.String("subject", "", "the digest (sha256:...) of the manifest or index in REPO the artifact is about")
	artifactType := fs.String("artifact-type", "", "the artifact's type, and its one blob's media type, e.g. application/spdx+json")
	file := fs.String("file", "", "the artifact's content")
	title := fs.String("title", "", "org.opencontainers.image.title of the blob (default: the file's name)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *subject == "" || *artifactType == "" || *file == "" || fs.NArg() != 1 {
		return errors.New("attach: --subject, --artifact-type, --file and one REPO are required")
	}
	auth := remote.WithAuthFromKeychain(authn.DefaultKeychain)
	subjectRef, err := reference(fs.Arg(0) + "@" + *subject)
	if err != nil {
		return err
	}
	repo := subjectRef.Context()
	subjectDesc, err := remote.Head(subjectRef, auth)
	if err != nil {
		return fmt.Errorf("attach: the subject %s: %w", subjectRef, err)
	}
	content, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	blob := static.NewLayer(content, types.MediaType(*artifactType))
	config := static.NewLayer(emptyConfig, types.MediaType("application/vnd.oci.empty.v1+json"))
	for _, l := range []v1.Layer{config, blob} {
		if err := remote.WriteLayer(repo, l, auth); err != nil {
			return err
		}
	}
	describe := func(l v1.Layer) (v1.Descriptor, error) {
		d, err := l.Digest()
		if err != nil {
			return v1.Descriptor{}, err
		}
		s, err := l.Size()
		if err != nil {
			return v1.Descriptor{}, err
		}
		mt, err := l.MediaType()
		return v1.Descriptor{MediaType: mt, Digest: d, Size: s}, err
	}
	configDesc, err := describe(config)
	if err != nil {
		return err
	}
	blobDesc, err := describe(blob)
	if err != nil {
		return err
	}
	name := *title
	if name == "" {
		name = baseName(*file)
	}
	blobDesc.Annotations = map[string]string{"org.opencontainers.image.title": name}
	manifest := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  *artifactType,
		Config:        configDesc,
		Layers:        []v1.Descriptor{blobDesc},
		Subject:       &v1.Descriptor{MediaType: subjectDesc.MediaType, Digest: subjectDesc.Digest, Size: subjectDesc.Size},
	}
	body, err := json.Marshal(manifest)
	if err != nil {
		return err
	}
	digest, _, err := v1.SHA256(bytes.NewReader(body))
	if err != nil {
		return err
	}
	if err := remote.Put(repo.Digest(digest.String()), rawManifest{body: body, mediaType: types.OCIManifestSchema1}, auth); err != nil {
		return err
	}
	fmt.Println(digest.String())
	return nil
}
