import { useCallback, useEffect, useState } from 'preact/hooks';
import type { XchainClient } from '@xchain/client';
import { errorText } from '../shared/api';
import type { Registry } from '../shared/registry';

export interface PageProps {
  api: XchainClient;
  registry: Registry | undefined;
  /** Called with any failure: a 401 ends the session. */
  onAuthError: (err: unknown) => void;
}

export type Loaded<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'error'; message: string };

/** Reads `load()` now and on `reload()`; a failure is kept as its message (and reported to `onError`). */
export function useLoad<T>(load: () => Promise<T>, onError: (err: unknown) => void, deps: unknown[]): [Loaded<T>, () => void] {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (v) => live && setValue({ state: 'ok', value: v }),
      (err: unknown) => {
        if (!live) return;
        setValue({ state: 'error', message: errorText(err) });
        onError(err);
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return [value, useCallback(() => setRound((r) => r + 1), [])];
}
