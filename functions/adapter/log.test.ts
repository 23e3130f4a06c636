// The functions' logger: the request id on every line, secret fields redacted, secrets inside text masked.
import { describe, expect, it } from 'vitest';
import { createLambdaLogger, scrubSecrets } from './log.ts';
import { captureLines } from './test-context.ts';

const EKS_TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eQ';

describe('scrubSecrets', () => {
  it.each([
    ['an EKS token', `denied ${EKS_TOKEN} here`, 'denied k8s-aws-v1.[redacted] here'],
    ['a bearer token', 'Authorization: Bearer abc.def-123', 'Authorization: Bearer [redacted]'],
    ['presigned URL parts', 'https://sts.amazonaws.com/?X-Amz-Credential=AKID%2F2026&X-Amz-Security-Token=IQo&X-Amz-Signature=82d9', 'https://sts.amazonaws.com/?X-Amz-Credential=[redacted]&X-Amz-Security-Token=[redacted]&X-Amz-Signature=[redacted]'],
    ['ordinary text is left alone', 'patching NodeMaintenance default/a: HTTP 409', 'patching NodeMaintenance default/a: HTTP 409'],
  ])('masks %s', (_what, line, expected) => {
    expect(scrubSecrets(line)).toBe(expected);
  });
});

describe('createLambdaLogger', () => {
  it('stamps the current request id on every line, including child loggers', () => {
    const out = captureLines();
    const log = createLambdaLogger({ level: 'info', destination: out.destination });
    log.setRequestId('req-1');
    log.logger.info('one');
    log.logger.child({ fn: 'drainer' }).info({ n: 1 }, 'two');
    log.setRequestId('req-2');
    log.logger.warn('three');
    expect(out.records().map((r) => [r['requestId'], r['msg']])).toEqual([
      ['req-1', 'one'],
      ['req-1', 'two'],
      ['req-2', 'three'],
    ]);
  });

  it('redacts secret fields and masks secrets in messages', () => {
    const out = captureLines();
    const { logger } = createLambdaLogger({ level: 'info', destination: out.destination });
    logger.info({ token: 't1', user: { password: 'p1' }, request: { headers: { authorization: 'Bearer b1' } }, creds: { secretAccessKey: 's1', sessionToken: 'st1' } }, 'fields');
    logger.error({ error: { message: `HTTP 401: token ${EKS_TOKEN} rejected` } }, 'text');
    expect(out.lines.join('\n')).not.toMatch(/t1|p1|b1|s1|st1|aHR0cHM6/);
    expect(out.records()[0]).toMatchObject({ token: '[redacted]', user: { password: '[redacted]' }, request: { headers: { authorization: '[redacted]' } }, creds: { secretAccessKey: '[redacted]', sessionToken: '[redacted]' } });
    expect(out.records()[1]).toMatchObject({ error: { message: 'HTTP 401: token k8s-aws-v1.[redacted] rejected' } });
  });
});
