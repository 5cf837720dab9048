/**
 * Cerbos for `bench:peer`: the binary from the npm registry, the bench tenant's rules as
 * Cerbos policies, and a server on free loopback ports.
 *
 * The binary is installed at bench time into a cache under node_modules (never a dependency
 * of the project) and reused while its version is the one named here. Configuration and
 * policies are written as JSON, which is YAML, so no escaping can go wrong.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { freePort } from '../test/processes.js';
import { root, waitUntilHealthy } from './support.js';
import type { BenchRule } from './tenant.js';

export const CERBOS_VERSION = '0.55.0';
const PACKAGE = '@cerbos/cerbos-linux-x64';
const cacheDir = join(root, 'node_modules', '.cache', 'agov-bench-peer');
/** Cerbos's name for what our API is asked about: an action on an integration. */
const RESOURCE_KIND = 'action';

/** The path of the Cerbos binary, installed from npm unless this version is already there. */
export function installCerbos(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`bench:peer runs Cerbos from ${PACKAGE}, so only on linux-x64; this is ${process.platform}-${process.arch}`);
  }
  const packageDir = join(cacheDir, 'node_modules', ...PACKAGE.split('/'));
  const installed = () =>
    existsSync(join(packageDir, 'package.json')) &&
    JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version === CERBOS_VERSION;
  if (!installed()) {
    console.log(`Installing ${PACKAGE}@${CERBOS_VERSION} into ${cacheDir}`);
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--prefix', cacheDir, `${PACKAGE}@${CERBOS_VERSION}`],
      { stdio: 'inherit' },
    );
    if (!installed()) throw new Error(`npm did not install ${PACKAGE}@${CERBOS_VERSION} into ${cacheDir}`);
  }
  // The package's `main` is the binary itself.
  return join(packageDir, 'cerbos-linux-x64');
}

/**
 * One agent's rules as a Cerbos principal policy, since in our API each agent owns its rules.
 * Each rule becomes an action rule on RESOURCE_KIND whose action is the rule's operation and
 * whose condition checks the other fields, cheapest first, as our matcher does.
 *
 * Cerbos has no third effect: `approval_required` becomes EFFECT_ALLOW with an output that says
 * "approval_required", which Cerbos evaluates and returns only when that rule decides; the caller
 * reads it as we read `decision`. Cerbos has no priorities either: every rule for the action is
 * evaluated and a deny overrides an allow. That gives our first-match-by-priority decision only
 * while no two rules can match one action: checked here as every rule naming an integration
 * of its own.
 */
function principalPolicy(principal: string, rules: readonly BenchRule[]) {
  const integrations = rules.map((rule) => rule.target_integration);
  if (integrations.includes('*') || new Set(integrations).size !== integrations.length) {
    throw new Error('rules that can match the same action need priorities, which Cerbos does not have');
  }
  return {
    apiVersion: 'api.cerbos.dev/v1',
    principalPolicy: {
      principal,
      version: 'default',
      rules: [{ resource: RESOURCE_KIND, actions: rules.map(actionRule) }],
    },
  };
}

function actionRule(rule: BenchRule) {
  const conditions = [
    `R.attr.data_classification == ${JSON.stringify(rule.data_classification)}`,
    `R.attr.target_integration == ${JSON.stringify(rule.target_integration)}`,
    scopeCondition(rule.resource_scope),
  ].filter((condition) => condition !== null);
  return {
    name: `rule-${rule.priority}`,
    action: rule.operation,
    effect: rule.policy_effect === 'deny' ? 'EFFECT_DENY' : 'EFFECT_ALLOW',
    condition: { match: { all: { of: conditions.map((expr) => ({ expr })) } } },
    ...(rule.policy_effect === 'approval_required' ? { output: { when: { ruleActivated: '"approval_required"' } } } : {}),
  };
}

/** Our resource-scope glob as CEL, for the patterns the bench uses: exact, `*`, or a prefix and `*`. */
function scopeCondition(pattern: string): string | null {
  const star = pattern.indexOf('*');
  if (star === -1) return `R.attr.resource_scope == ${JSON.stringify(pattern)}`;
  if (pattern === '*') return null;
  if (star === pattern.length - 1) return `R.attr.resource_scope.startsWith(${JSON.stringify(pattern.slice(0, -1))})`;
  throw new Error(`no CEL for the resource scope ${pattern}`);
}

/** The body of `POST /api/check/resources` asking whether `principal` may do `action`. */
export function checkRequest(
  principal: string,
  action: { operation: string; target_integration: string; resource_scope: string; data_classification: string },
) {
  const { operation, ...attr } = action;
  return {
    requestId: 'bench',
    principal: { id: principal, roles: ['agent'] },
    resources: [{ actions: [operation], resource: { kind: RESOURCE_KIND, id: 'bench', attr } }],
  };
}

/** The effect in our terms of a check response's first (only) resource and action. */
export function effectOf(body: Record<string, unknown>, operation: string): 'allow' | 'approval_required' | 'deny' | 'unknown' {
  const result = (body.results as { actions?: Record<string, string>; outputs?: { val?: unknown }[] }[] | undefined)?.[0];
  const effect = result?.actions?.[operation];
  if (effect === 'EFFECT_DENY') return 'deny';
  if (effect !== 'EFFECT_ALLOW') return 'unknown';
  return result?.outputs?.some((output) => output.val === 'approval_required') ? 'approval_required' : 'allow';
}

export interface CerbosServer {
  url: string;
  /** The server's process id, to read its CPU time from `/proc`. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts Cerbos on free loopback ports over `policyDir` and waits for its health check.
 * With `auditFile`, every access and every decision is logged to that file; without it,
 * audit is off.
 */
export async function startCerbos(binary: string, workDir: string, policyDir: string, auditFile: string | null): Promise<CerbosServer> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const config = {
    server: { httpListenAddr: `127.0.0.1:${httpPort}`, grpcListenAddr: `127.0.0.1:${grpcPort}` },
    storage: { driver: 'disk', disk: { directory: policyDir, watchForChanges: false } },
    audit: auditFile
      ? { enabled: true, backend: 'file', accessLogsEnabled: true, decisionLogsEnabled: true, file: { path: auditFile } }
      : { enabled: false },
    telemetry: { disabled: true },
  };
  await mkdir(workDir, { recursive: true });
  const configFile = join(workDir, auditFile ? 'cerbos-audit.yaml' : 'cerbos.yaml');
  await writeFile(configFile, JSON.stringify(config, null, 2));
  // Errors only: at warn it reports that OpenTelemetry tracing is off, which is as meant.
  const child: ChildProcess = spawn(binary, ['server', `--config=${configFile}`, '--log-level=error'], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  forwardLog(child.stdout!, child.stderr!);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `http://127.0.0.1:${httpPort}`;
  try {
    await waitUntilHealthy('cerbos', child, `${url}/_cerbos/health`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid as number, stop };
}

/**
 * Cerbos's log to stderr, less the checks whose client went away: autocannon closes its
 * connections with requests in flight when its time is up, and Cerbos logs each such check as
 * an error ("context canceled", then the call's "Handled request"). Everything else passes.
 */
function forwardLog(...streams: Readable[]) {
  const cancelled = new Set<string>();
  for (const input of streams) {
    createInterface({ input }).on('line', (line) => {
      const callId = /"call_id":"([^"]+)"/.exec(line)?.[1];
      if (callId && line.includes('"error":"context canceled"')) cancelled.add(callId);
      else if (!(callId && cancelled.delete(callId))) process.stderr.write(`${line}\n`);
    });
  }
}

/** Writes one principal policy per agent into `policyDir`. */
export async function writePolicies(policyDir: string, rulesByAgent: Record<string, readonly BenchRule[]>): Promise<void> {
  await mkdir(policyDir, { recursive: true });
  for (const [agent, rules] of Object.entries(rulesByAgent)) {
    await writeFile(join(policyDir, `${agent}.yaml`), JSON.stringify(principalPolicy(agent, rules), null, 2));
  }
}
