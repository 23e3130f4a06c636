// npm run image:push -- <registry>/<repository>: pushes the image built by npm run image:build (image/out/layout) as
// <registry>/<repository>:<version>, with the credentials of the Docker config (docs/release.md).
import { readFileSync } from 'node:fs';
import { IMAGE_JSON, LAYOUT_DIR, type ImageFacts } from './build.ts';
import { pushImage } from './registry.ts';
import { ensureImageTool } from './tool.ts';

const repository = process.argv[2];
if (repository === undefined || repository.includes('@') || /:[^/]*$/.test(repository)) {
  process.stderr.write('usage: npm run image:push -- <registry>/<repository>   (the tag is the built version, e.g. ghcr.io/acme/kmaint)\n');
  process.exit(2);
}
const facts = JSON.parse(readFileSync(IMAGE_JSON, 'utf8')) as ImageFacts;
const tool = await ensureImageTool((line) => process.stderr.write(`image: ${line}\n`));
const ref = `${repository}:${facts.tag}`;
const digest = pushImage(tool, LAYOUT_DIR, facts.tag, ref);
process.stdout.write(`${ref}@${digest}\n`);
