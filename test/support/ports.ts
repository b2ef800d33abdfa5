import type { AddressInfo } from 'node:net';
import net from 'node:net';

/** A loopback port free right now (for processes the test starts itself). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
