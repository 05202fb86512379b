#!/usr/bin/env node
// `npx gex <command>`: runs the TypeScript CLI through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
await import(new URL('../app/cli/main.ts', import.meta.url).href);
