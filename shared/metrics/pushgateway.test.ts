// pushToGateway's refusals, with the fetch it is given: each one a MetricsPushError naming the group's URL, the HTTP
// status and why, nothing swallowed.
import { describe, expect, it } from 'vitest';
import { MetricsPushError } from './errors.ts';
import { pushToGateway } from './pushgateway.ts';

const URL_BASE = 'http://pushgateway.test:9091';
const GROUP = `${URL_BASE}/metrics/job/kmaint-drainer`;

async function refusal(answer: () => Promise<Response>): Promise<{ name: string; message: string; status: number | undefined; url: string }> {
  try {
    await pushToGateway([], { url: URL_BASE, job: 'kmaint-drainer', fetch: answer });
  } catch (err) {
    if (!(err instanceof MetricsPushError)) throw err;
    return { name: err.name, message: err.message, status: err.status, url: err.url };
  }
  throw new Error('the push was taken');
}

/** A body that sends its first bytes, then breaks off. */
function brokenBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('partial'));
      controller.error(new Error('connection reset'));
    },
  });
}

describe('pushToGateway refusals', () => {
  it.each([
    {
      rule: 'an HTTP error: its status and the first line of its body',
      answer: () => Promise.resolve(new Response('text format parsing error in line 3\nmore detail', { status: 400 })),
      status: 400,
      message: `pushing metrics to ${GROUP}: HTTP 400: text format parsing error in line 3`,
    },
    {
      rule: 'an HTTP error with an empty body: its status alone',
      answer: () => Promise.resolve(new Response('', { status: 503 })),
      status: 503,
      message: `pushing metrics to ${GROUP}: HTTP 503`,
    },
    {
      rule: 'an HTTP error whose body breaks off: said, not swallowed',
      answer: () => Promise.resolve(new Response(brokenBody(), { status: 500 })),
      status: 500,
      message: `pushing metrics to ${GROUP}: HTTP 500: (the answer's body could not be read: connection reset)`,
    },
    {
      rule: 'no answer at all: the transport error and its cause',
      answer: () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9091') })),
      status: undefined,
      message: `pushing metrics to ${GROUP}: fetch failed: connect ECONNREFUSED 127.0.0.1:9091`,
    },
  ])('$rule', async ({ answer, status, message }) => {
    expect(await refusal(answer)).toEqual({ name: 'MetricsPushError', message, status, url: GROUP });
  });
});
