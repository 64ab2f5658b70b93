import { useEffect, useState } from 'react';
import { Checkbox } from '../../components/ui';
import type { DesktopSettingsView } from '../../../../shared/ipc/channels/desktop';
import { call, errorMessage } from '../../lib/desk';

/**
 * Settings → Desktop: keep running in the background when the window is closed (tray on Windows
 * and Linux, dock on macOS) and start at login (hidden). Main keeps the choice and sets the
 * login item; the page only sends the two booleans.
 */
export function DesktopPanel() {
  const [view, setView] = useState<DesktopSettingsView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    call('desktop.settings', undefined).then(setView, (err: unknown) => setProblem(errorMessage(err)));
  }, []);

  const change = async (patch: Partial<DesktopSettingsView>): Promise<void> => {
    setProblem(null);
    const before = view;
    // The box follows the click at once; main's answer (or a refusal) settles it.
    if (before) setView({ ...before, ...patch });
    try {
      setView(await call('desktop.updateSettings', patch));
    } catch (err) {
      setView(before);
      setProblem(`Not changed: ${errorMessage(err)}`);
    }
  };

  if (!view) return problem ? <p role="alert">{problem}</p> : <p role="status">Loading…</p>;
  return (
    <fieldset className="settings__checks">
      <legend>On this computer</legend>
      <Checkbox
        isSelected={view.keepRunningInBackground}
        onChange={(v) => void change({ keepRunningInBackground: v })}
      >
        Keep running in the background (new RFIs are still notified)
      </Checkbox>
      <Checkbox isSelected={view.startAtLogin} onChange={(v) => void change({ startAtLogin: v })}>
        Start at login, without opening the window
      </Checkbox>
      {problem && <p role="alert">{problem}</p>}
    </fieldset>
  );
}
