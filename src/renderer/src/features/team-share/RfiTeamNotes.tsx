import { useEffect, useState } from 'react';
import type { PresentView, TeamNoteView } from '../../../../shared/ipc/channels/team-share';
import { Badge, Button, TextArea } from '../../components/ui';
import { call, errorMessage } from '../../lib/desk';
import { onEvents, useSubscription } from '../../lib/events';
import './team-share.css';
import { teamActive, teamSubscription, useTeam } from '../team/store';
import { dateWords } from '../../../../shared/words';

const BEAT_MS = 10_000;

/** "Jonas Weber is viewing this RFI", "Jonas Weber and Lea Fischer are viewing this RFI". */
export function presenceWords(present: readonly PresentView[]): string | null {
  if (present.length === 0) return null;
  const names = present.map((p) => p.name);
  const who =
    names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  const editing = present.every((p) => p.activity === 'editing');
  return `${who} ${present.length === 1 ? 'is' : 'are'} ${editing ? 'editing' : 'viewing'} this RFI.`;
}

/**
 * The RFI detail's team part: who else has the RFI open (beats every 10 s while it is shown,
 * leaves when it closes) and the team's notes on it, never sent to the bank. Nothing in solo use.
 */
export function RfiTeamNotes({ rfiId, profileId }: { rfiId: string; profileId: string }) {
  useSubscription(teamSubscription);
  const active = useTeam((s) => teamActive(s.status));
  const [notes, setNotes] = useState<TeamNoteView[]>([]);
  const [present, setPresent] = useState<PresentView[]>([]);
  const [canWrite, setCanWrite] = useState(false);
  const [offline, setOffline] = useState(false);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const target = { rfiId, profileId };
  const key = `${rfiId}/${profileId}`;

  useEffect(() => {
    if (!active) return;
    let live = true;
    const load = (): void => {
      call('team.notes', target)
        .then((r) => {
          if (!live) return;
          setNotes(r.notes);
          setPresent(r.present);
          setCanWrite(r.canWrite);
          setOffline(r.offline);
          setProblem(null);
        })
        .catch((err: unknown) => live && setProblem(errorMessage(err)));
    };
    load();
    const beat = (activity: 'viewing' | 'gone'): void => {
      void call('team.presence', { ...target, activity })
        .then((r) => live && setPresent(r.present))
        .catch(() => undefined);
    };
    beat('viewing');
    const timer = setInterval(() => beat('viewing'), BEAT_MS);
    const off = onEvents({
      'team.shared': (e) => {
        if (e.rfiId !== rfiId) return;
        if (e.notice) setProblem(e.notice);
        if (e.topic === 'note' || e.topic === 'presence') load();
      },
    });
    return () => {
      live = false;
      clearInterval(timer);
      off();
      beat('gone');
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the target is the key
  }, [active, key]);

  if (!active) return null;
  const here = presenceWords(present);

  const add = async (): Promise<void> => {
    setBusy(true);
    setProblem(null);
    try {
      const n = await call('team.addNote', { ...target, text });
      setNotes((list) => [...list.filter((x) => x.id !== n.id), n]);
      setText('');
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby={`team-notes-${rfiId}`} className="rfi-team-notes" data-testid="rfi-team-notes">
      <p role="status" className="rfi-team-notes__presence" data-testid="rfi-presence">
        {here ?? 'Nobody else on the team has this RFI open.'}
      </p>
      <h2 id={`team-notes-${rfiId}`}>Team notes</h2>
      <p className="muted">For your team only: notes are never sent to the bank.</p>
      {offline && <p className="muted">The team server cannot be reached: these are the notes last read.</p>}
      {notes.length === 0 ? (
        <p className="muted">No notes yet.</p>
      ) : (
        <ol className="rfi-team-notes__list" aria-label="Team notes">
          {notes.map((n) => (
            <li key={n.id} data-testid="team-note">
              <p className="rfi-team-notes__meta">
                <strong>{n.author.isYou ? 'You' : n.author.name}</strong>{' '}
                <span className="muted">wrote on {dateWords(n.at)}</span>{' '}
                {n.pending && <Badge tone="info">Waiting for the team server</Badge>}
              </p>
              <p className="rfi-team-notes__text">{n.text}</p>
            </li>
          ))}
        </ol>
      )}
      {canWrite && (
        <div className="rfi-team-notes__add">
          <TextArea label="New note for the team" rows={3} value={text} onChange={setText} />
          <Button size="sm" isPending={busy} isDisabled={text.trim() === ''} onPress={() => void add()}>
            Add note
          </Button>
        </div>
      )}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
    </section>
  );
}
