import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A client X-Request-ID is echoed when it is sane; anything else gets a fresh UUID. */
const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export function genRequestId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && SANE.test(h) ? h : randomUUID();
}
