/**
 * The status line as every screen reads it: the session main pushes, this computer's network,
 * and a one-second tick while a retry countdown is on screen.
 */

import { useEffect, useState } from 'react';
import { useOnline } from '../../lib/online';
import { statusLine } from '../../lib/status-line';
import type { StatusLine } from '../../lib/status-line';
import { useSubscription } from '../../lib/events';
import { sessionSubscription, useSession } from './store';

export function useStatusLine(): StatusLine {
  useSubscription(sessionSubscription);
  const status = useSession((s) => s.status);
  const online = useOnline();
  const [now, setNow] = useState(() => Date.now());
  const counting = status?.connection === 'offline' && status.retryAt !== null;
  useEffect(() => {
    if (!counting) return;
    const tick = () => setNow(Date.now());
    const first = setTimeout(tick, 0);
    const timer = setInterval(tick, 1000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [counting, status?.retryAt]);
  return statusLine(status, now, online);
}
