/**
 * Starts the built main process (out/main/index.js) in a Node child process with `electron`
 * resolved to the double (register.ts), and talks to the double over the fork IPC channel.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { DoubleReply, DoubleRequest, DoubleState } from './protocol';

export const root = path.resolve(import.meta.dirname, '../../..');
export const builtMain = path.join(root, 'out/main/index.js');
export const builtPreload = path.join(root, 'out/preload/index.cjs');

/** Fails with what to do when the app has not been built (npm test builds before the unit tests). */
export function requireBuild(): void {
  for (const file of [builtMain, builtPreload, path.join(root, 'out/renderer/index.html')]) {
    if (!existsSync(file)) {
      throw new Error(`${path.relative(root, file)} is missing: run "npm run build" first (npm test does).`);
    }
  }
}

type Request = DoubleRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface BootedShell {
  child: ChildProcess;
  /** Sends one request to the double and answers its value (rejects with the double's error). */
  call<T = unknown>(request: Request): Promise<T>;
  state(): Promise<DoubleState>;
  /** The state the double reported when the app's main loop ended (app.exit or app.quit). */
  ended: Promise<DoubleState>;
  /** Resolves when the child process has exited by itself. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the child printed (stdout and stderr). */
  output(): string;
  /** Kills the child if it is still running. */
  kill(): void;
}

const running = new Set<BootedShell>();

/** Kills every shell this process booted that is still running (for afterAll). */
export function killAllShells(): void {
  for (const shell of running) shell.kill();
}

/** `promise`, or a rejection naming `what` after `ms`: a test never hangs on a child. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function bootShell(options: {
  userData: string;
  lock?: 'granted' | 'denied';
  /** Command-line arguments after the entry (a cold start's link, --hidden). */
  argv?: string[];
}): BootedShell {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TD_ELECTRON_DOUBLE_USER_DATA: options.userData,
    TD_ELECTRON_DOUBLE_LOCK: options.lock ?? 'granted',
  };
  delete env['ELECTRON_RENDERER_URL'];
  delete env['NODE_OPTIONS'];
  const child = fork(builtMain, options.argv ?? [], {
    cwd: root,
    env,
    execArgv: ['--import', 'tsx', '--import', './test/support/electron-double/register.ts'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));

  let nextId = 1;
  const waiting = new Map<number, (reply: DoubleReply & { type: 'reply' }) => void>();
  let reportEnded: (state: DoubleState) => void = () => {};
  const ended = new Promise<DoubleState>((resolve) => (reportEnded = resolve));
  child.on('message', (message: DoubleReply) => {
    if (message.type === 'ended') reportEnded(message.state);
    else waiting.get(message.id)?.(message);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  // Keep the promise from being reported as unhandled when a test never awaits it.
  ended.catch(() => {});

  const call = <T>(request: Request): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) {
        reject(new Error(`the main process is gone; its output:\n${output}`));
        return;
      }
      const id = nextId++;
      waiting.set(id, (reply) => {
        waiting.delete(id);
        if (reply.ok) resolve(reply.value as T);
        else reject(new Error(reply.error));
      });
      child.send({ ...request, id });
    });

  const shell: BootedShell = {
    child,
    call,
    state: () => call<DoubleState>({ op: 'state' }),
    ended,
    exited,
    output: () => output,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
  running.add(shell);
  child.once('exit', () => running.delete(shell));
  return shell;
}

/** Polls the double's state until `ok` holds (or fails after `timeoutMs` with the child's output). */
export async function waitForState(
  shell: BootedShell,
  ok: (state: DoubleState) => boolean,
  timeoutMs = 20_000,
): Promise<DoubleState> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const state = await shell.state();
    if (ok(state)) return state;
    if (Date.now() > until)
      throw new Error(`timed out waiting for the shell; its output:\n${shell.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
