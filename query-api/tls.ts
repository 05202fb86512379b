/**
 * HTTPS for the API (TLS_CERT_FILE + TLS_KEY_FILE, README "HTTPS"): the PEM pair is read and checked at start (a
 * missing half, an unreadable file, a key that is not the certificate's: a ConfigError naming the setting), and
 * reloaded into the running server on SIGHUP and when either file changes. A reload that fails keeps the pair
 * being served; every reload is counted in gex_api_tls_reloads_total{result}.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import { Counter } from 'prom-client';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { ConfigError } from '#platform/settings.ts';
import type { ApiConfig } from './config.ts';

export const tlsReloads = registeredMetric(
  METRIC.apiTlsReloads,
  () =>
    new Counter({
      name: METRIC.apiTlsReloads,
      help: 'TLS certificate reloads (SIGHUP or a changed file) by result: ok (served to new connections), failed (the previous pair kept)',
      labelNames: ['result'] as const,
      registers: [metricsRegistry],
    }),
);

export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** A checked certificate + key pair, as served. */
export interface TlsPair {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** SHA-256 fingerprint of the leaf certificate, `AA:BB:…` (what `openssl x509 -fingerprint -sha256` prints). */
  readonly fingerprint256: string;
  readonly subject: string;
  readonly validTo: string;
}

/** A TLS file that cannot be served: the message names the setting, the file and the reason. */
export class TlsFileError extends Error {}

/** The TLS files of the settings: both or neither; one without the other is a ConfigError. */
export function tlsFilesOf(config: Pick<ApiConfig, 'tlsCertFile' | 'tlsKeyFile'>): TlsFiles | null {
  const { tlsCertFile: certFile, tlsKeyFile: keyFile } = config;
  if (certFile === undefined && keyFile === undefined) return null;
  if (certFile === undefined || keyFile === undefined) {
    const [set, unset] = certFile === undefined ? ['TLS_KEY_FILE', 'TLS_CERT_FILE'] : ['TLS_CERT_FILE', 'TLS_KEY_FILE'];
    throw new ConfigError([`${set} is set but ${unset} is not: set both (HTTPS) or neither (plain HTTP)`]);
  }
  return { certFile, keyFile };
}

/** OpenSSL's reason without its code prefix (`error:0480006C:PEM routines::no start line` -> `no start line`). */
function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const openssl = /^error:[0-9A-F]+:[^:]*::?(.+)$/.exec(message);
  return openssl?.[1] ?? message;
}

function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsFileError(`${setting} ${file}: cannot read (${reasonOf(err)})`);
  }
}

/** Reads both files and checks them: a PEM certificate, an unencrypted PEM private key, and the key is the certificate's. */
export function readTlsPair(files: TlsFiles): TlsPair {
  const cert = readPem('TLS_CERT_FILE', files.certFile);
  const key = readPem('TLS_KEY_FILE', files.keyFile);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (err) {
    throw new TlsFileError(`TLS_CERT_FILE ${files.certFile}: not a PEM certificate (${reasonOf(err)})`);
  }
  try {
    createPrivateKey(key);
  } catch (err) {
    throw new TlsFileError(`TLS_KEY_FILE ${files.keyFile}: not an unencrypted PEM private key (${reasonOf(err)})`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    const reason = reasonOf(err);
    throw new TlsFileError(
      /mismatch/i.test(reason)
        ? `TLS_KEY_FILE ${files.keyFile} is not the private key of the certificate in TLS_CERT_FILE ${files.certFile} (${reason})`
        : `TLS_CERT_FILE ${files.certFile} / TLS_KEY_FILE ${files.keyFile}: not a usable certificate and key (${reason})`,
    );
  }
  return { cert, key, fingerprint256: leaf.fingerprint256, subject: leaf.subject.replaceAll('\n', ', '), validTo: leaf.validTo };
}

/** The TLS settings read and checked for the start: null = plain HTTP. Throws ConfigError with a readable reason. */
export function readTlsConfig(config: Pick<ApiConfig, 'tlsCertFile' | 'tlsKeyFile'>): { files: TlsFiles; pair: TlsPair } | null {
  const files = tlsFilesOf(config);
  if (files === null) return null;
  try {
    return { files, pair: readTlsPair(files) };
  } catch (err) {
    if (err instanceof TlsFileError) throw new ConfigError([err.message]);
    throw err;
  }
}

export type TlsReloadTrigger = 'sighup' | 'file' | 'call';

export interface TlsReloaderOptions {
  /** The HTTPS server (https.Server is a tls.Server): new connections get the reloaded pair. */
  readonly server: TlsServer;
  readonly files: TlsFiles;
  /** The pair the server was started with. */
  readonly current: TlsPair;
  readonly log: FastifyBaseLogger;
  /** Poll interval of the file watch (fs.watchFile: follows a file replaced by rename or a symlink swap). Default 1000 ms. */
  readonly intervalMs?: number;
  /** Quiet time after a change before reloading, so a certificate and a key written one after the other load together. Default 2000 ms. */
  readonly debounceMs?: number;
}

export interface TlsReloader {
  /** The pair served to new connections (the last one that loaded). */
  readonly current: TlsPair;
  /** Re-reads both files; true when they loaded (served from now on), false when they did not (the current pair stays). */
  reload(trigger: TlsReloadTrigger): boolean;
  /** Stops listening for SIGHUP and watching the files. */
  close(): void;
}

/** Reloads the server's certificate on SIGHUP and when either file changes (debounced), until close(). */
export function startTlsReloader(opts: TlsReloaderOptions): TlsReloader {
  const { server, files, log } = opts;
  const intervalMs = opts.intervalMs ?? 1_000;
  const debounceMs = opts.debounceMs ?? 2_000;
  let current = opts.current;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  for (const result of ['ok', 'failed'] as const) tlsReloads.inc({ result }, 0);

  const reload = (trigger: TlsReloadTrigger): boolean => {
    let next: TlsPair;
    try {
      next = readTlsPair(files);
      server.setSecureContext({ cert: next.cert, key: next.key });
    } catch (err) {
      tlsReloads.inc({ result: 'failed' });
      log.error(
        { trigger, error: err instanceof TlsFileError ? err.message : reasonOf(err), servedFingerprint256: current.fingerprint256 },
        'TLS reload failed; still serving the previous certificate',
      );
      return false;
    }
    current = next;
    tlsReloads.inc({ result: 'ok' });
    log.info({ trigger, certFile: files.certFile, fingerprint256: next.fingerprint256, validTo: next.validTo }, 'TLS certificate reloaded');
    return true;
  };

  const onSighup = (): void => {
    reload('sighup');
  };
  // Content changes only: reading the files for a reload moves their access time, which must not trigger another.
  const onChange = (curr: Stats, prev: Stats): void => {
    if (curr.mtimeMs === prev.mtimeMs && curr.ctimeMs === prev.ctimeMs && curr.ino === prev.ino && curr.size === prev.size) return;
    if (closed) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      if (!closed) reload('file');
    }, debounceMs);
    timer.unref();
  };
  process.on('SIGHUP', onSighup);
  const watched = [...new Set([files.certFile, files.keyFile])];
  for (const file of watched) watchFile(file, { interval: intervalMs, persistent: false }, onChange);

  return {
    get current() {
      return current;
    },
    reload,
    close() {
      if (closed) return;
      closed = true;
      process.off('SIGHUP', onSighup);
      for (const file of watched) unwatchFile(file, onChange);
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The curl option that makes `curl <url>` accept the API's certificate: `--cacert <file>` when the certificate names
 * the URL's host (curl trusts the certificate itself, self-signed or not), else `-k` (no verification: the URL's host
 * is not in the certificate, so nothing verifies).
 */
export function curlTrustOption(certFile: string, url: string): string {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(readFileSync(certFile));
  } catch {
    return '-k';
  }
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const named = isIP(host) !== 0 ? leaf.checkIP(host) !== undefined : leaf.checkHost(host) !== undefined;
  return named ? `--cacert ${shellQuote(certFile)}` : '-k';
}
