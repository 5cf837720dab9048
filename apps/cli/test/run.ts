import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = (name: string) => fileURLToPath(new URL(`../dist/${name}.js`, import.meta.url));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built binary as a user would (the test setup builds it as `npm start` does), with
 * only the environment given here on top of PATH: nothing of the test process's own leaks in.
 */
export function agov(
  args: string[],
  options: { env?: Record<string, string>; input?: string; bin?: 'agov' | 'verify-trace' } = {},
): Promise<Run> {
  const child = spawn(process.execPath, [bin(options.bin ?? 'agov'), ...args], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
