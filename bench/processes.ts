/**
 * The processes the benchmark starts (service, reference servers, CLI) and what it reads about them
 * from /proc: CPU time, peak resident memory, and how busy the whole machine was meanwhile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

const ticksPerSecond = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

export interface Started {
  child: ChildProcess;
  port: number;
  logFile: string;
  stop(): Promise<number | null>;
}

/** Runs a command to completion and returns its stdout (throws with its stderr on failure). */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${err || out}`))));
  });
}

/**
 * Starts a server whose output goes to `logFile` (as a deployment would log: the benchmark does not
 * spend its own CPU reading it) and waits until a line of it gives the port.
 */
export async function startServer(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, portPattern: RegExp): Promise<Started> {
  const fd = openSync(logFile, 'w');
  const child = spawn(command, args, { env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  const deadline = Date.now() + 180_000;
  for (;;) {
    const log = readFileSync(logFile, 'utf8');
    const match = portPattern.exec(log);
    if (match) {
      return {
        child,
        port: Number(match[1]),
        logFile,
        async stop() {
          if (!done) child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          const code = await exited;
          clearTimeout(timer);
          return code;
        },
      };
    }
    if (done) throw new Error(`${command} ${args.join(' ')} exited before listening:\n${log.slice(-3000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${command} did not listen within 180 s:\n${log.slice(-3000)}`);
    }
    await sleep(100);
  }
}

/** CPU seconds (user + system) the process has used. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state is index 0, so utime (14th) is index 11 and stime index 12.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

/** Busy and total jiffies of the whole machine (all cores). */
function machineTicks(): { busy: number; total: number } {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const values = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((a, b) => a + b, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

export interface Usage {
  /** CPU the process used, in % of one core, over the window. */
  cpuPercent: number;
  /** Peak resident set over the window (VmHWM after resetting it), MB. */
  peakRssMb: number;
  /** Share of the machine's CPU (all cores) busy over the window, %, and the 1-minute load average. */
  machineBusyPercent: number;
  loadAverage: number;
}

/** Starts measuring a process (resets its peak-RSS mark); `end()` returns its usage since. */
export function measure(pid: number) {
  let resetPeak = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    resetPeak = false; // older kernels: the peak is the process's lifetime peak
  }
  const started = performance.now();
  const cpu = cpuSeconds(pid);
  const machine = machineTicks();
  let sampledPeak = statusKb(pid, 'VmRSS');
  const sampler = setInterval(() => {
    try {
      sampledPeak = Math.max(sampledPeak, statusKb(pid, 'VmRSS'));
    } catch {
      /* exited */
    }
  }, 200);
  return {
    end(): Usage {
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      const m = machineTicks();
      const peakKb = resetPeak ? statusKb(pid, 'VmHWM') : Math.max(sampledPeak, statusKb(pid, 'VmRSS'));
      return {
        cpuPercent: ((cpuSeconds(pid) - cpu) / seconds) * 100,
        peakRssMb: peakKb / 1024,
        machineBusyPercent: ((m.busy - machine.busy) / Math.max(1, m.total - machine.total)) * 100,
        loadAverage: loadavg()[0]!,
      };
    },
  };
}
