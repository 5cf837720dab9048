#!/usr/bin/env node
import { runProcess } from './cli.js';

// The name `agov verify` had before 1.0.0, kept for one version (CHANGELOG).
process.stderr.write('verify-trace is deprecated and goes in the next version: use `agov verify`\n');
process.exitCode = await runProcess(['verify', ...process.argv.slice(2)]);
