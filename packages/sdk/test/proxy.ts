import { createServer, type Socket, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DroppingProxy {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy to `target` that forwards the first connection's request, lets the service
 * answer it, and then cuts the connection instead of passing the answer on: the work is
 * done but the client sees a network error. Later connections pass through untouched.
 */
export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: DroppingProxy = { url: '', connections: 0, close: async () => {} };
  const server = createServer((client) => {
    proxy.connections += 1;
    const drop = proxy.connections === 1;
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    if (drop) {
      upstream.once('data', () => {
        client.destroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}
