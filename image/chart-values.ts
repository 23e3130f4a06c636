// The released chart's default image: charts/kmaint/values.yaml with operator.image's repository, name and digest set
// to what the release pushed, so `helm install oci://…/kmaint --version X` runs that image by digest with no --set.
// A text edit of the three lines (the file's comments, which helm-docs and `helm show values` print, stay as they are).

export interface ReleasedImage {
  /** The registry path in front of the name, e.g. ghcr.io/acme. */
  repository: string;
  /** The image's name, e.g. kmaint. */
  name: string;
  /** The OCI index's digest, sha256:<64 hex>. */
  digest: string;
}

/** `ghcr.io/acme/kmaint` → repository `ghcr.io/acme`, name `kmaint`; a reference with a tag or digest is refused. */
export function splitImageRepository(ref: string): { repository: string; name: string } {
  const slash = ref.lastIndexOf('/');
  if (slash <= 0 || ref.includes('@') || /:[^/]*$/.test(ref) || !/^[a-z0-9]+(?:[._-][a-z0-9]+)*$/.test(ref.slice(slash + 1))) {
    throw new Error(`${ref}: expected <registry>/<repository>, e.g. ghcr.io/acme/kmaint (no tag, no digest)`);
  }
  return { repository: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

const KEYS = ['repository', 'name', 'digest'] as const;

/** values.yaml with operator.image.{repository,name,digest} set; throws when one of the three lines is not found once. */
export function releasedValues(values: string, image: ReleasedImage): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(image.digest)) throw new Error(`the image digest ${image.digest} is not sha256:<64 hex digits>`);
  const lines = values.split('\n');
  const operator = lines.indexOf('operator:');
  const start = operator < 0 ? -1 : lines.indexOf('  image:', operator);
  if (start < 0) throw new Error('values.yaml has no operator.image block');
  // The block ends at the first line indented two spaces or less that is not a comment.
  let end = start + 1;
  while (end < lines.length && (/^ {4}/.test(lines[end] ?? '') || /^\s*(#.*)?$/.test(lines[end] ?? ''))) end += 1;
  for (const key of KEYS) {
    const at = lines.slice(start + 1, end).findIndex((l) => l.startsWith(`    ${key}:`));
    if (at < 0) throw new Error(`values.yaml's operator.image has no ${key}`);
    lines[start + 1 + at] = `    ${key}: ${JSON.stringify(image[key])}`;
  }
  return lines.join('\n');
}
