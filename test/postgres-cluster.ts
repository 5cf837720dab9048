import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The server's programs (initdb, pg_ctl, pg_basebackup), from Debian's PostgreSQL packages. */
function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL server under ${root}`);
  return join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, each program runs as the `postgres` user. */
function asServerUser(program: string, args: string[]) {
  const path = join(binDir(), program);
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', path, ...args]) : run(path, args);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A PostgreSQL cluster of a test's own, on a free port of 127.0.0.1, trusting local connections. */
export interface Cluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** Starts the server and waits until it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown: every session is cut, as an operator's restart or a crash would. */
  stop(): Promise<void>;
  /** A standby's promotion to primary, waiting until it accepts writes. */
  promote(): Promise<void>;
  /** A streaming standby of this cluster (`pg_basebackup -R`), started. */
  standby(): Promise<Cluster>;
  /** Stops the server if it runs and deletes its files. */
  destroy(): Promise<void>;
}

function clusterAt(dir: string, port: number): Cluster {
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const cluster: Cluster = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await asServerUser('pg_ctl', ['-D', dir, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start']);
    },
    async stop() {
      await asServerUser('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop']);
    },
    async promote() {
      await asServerUser('pg_ctl', ['-D', dir, '-w', 'promote']);
    },
    async standby() {
      const standbyDir = ownedTempDir();
      await asServerUser('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-D',
        standbyDir,
        '-R',
        '-X',
        'stream',
        '--checkpoint=fast',
      ]);
      const standby = clusterAt(standbyDir, await freePort());
      await standby.start();
      return standby;
    },
    async destroy() {
      await asServerUser('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

function ownedTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agov-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  return dir;
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user on this machine');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A new cluster (initdb), started. */
export async function startCluster(): Promise<Cluster> {
  const dir = ownedTempDir();
  await asServerUser('initdb', ['-D', dir, '-U', 'postgres', '-A', 'trust', '--no-sync', '--no-instructions']);
  const cluster = clusterAt(dir, await freePort());
  await cluster.start();
  return cluster;
}
