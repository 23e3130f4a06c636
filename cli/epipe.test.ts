// `kmaint … | head`: when the reader closes the pipe early the command ends quietly with its own exit code.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('kmaint with its output piped into a reader that stops early', () => {
  it('exits 0 with nothing on stderr', async () => {
    const child = spawn(process.execPath, ['bin/kmaint.mjs', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Like `head -1`: read the first chunk, then close our end of the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
