/**
 * What the numbers were measured on.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** @param {string} chromium the Chromium binary */
export function machineInfo(chromium) {
  let chromiumVersion = null;
  try {
    chromiumVersion = execFileSync(chromium, ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // Reported as null; the browser tables will fail with their own message.
  }
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model ?? null,
    totalMemMB: Math.round(os.totalmem() / 2 ** 20),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    chromium: chromiumVersion,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
