#!/usr/bin/env node
// `npx gex <command>`: runs the TypeScript CLI through tsx (no build step).
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
register('tsx/esm', pathToFileURL('./'));
await import(new URL('../ops/cli/main.ts', import.meta.url).href);
