#!/usr/bin/env node
import { runProcess } from './cli.js';

process.exitCode = await runProcess(process.argv.slice(2));
