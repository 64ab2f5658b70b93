import { acceleratorFor, acceleratorKeys, helpGroups, shortcuts } from '../../../shared/shortcuts';
import { Button, Dialog } from './ui';

const isMac = typeof navigator !== 'undefined' && /Mac/i.test(navigator.platform);

/** The app's own shortcuts (helpGroups) in a modal (loaded on first use: the design system stays off the first screen). */
export function ShortcutsDialog({
  isOpen,
  onOpenChange,
}: {
  isOpen: boolean;
  onOpenChange(open: boolean): void;
}) {
  // React Aria's modal traps focus, closes on Escape and gives focus back where it was.
  return (
    <Dialog
      isOpen={isOpen}
      onOpenChange={onOpenChange}
      title="Keyboard shortcuts"
      className="shortcuts"
      data-testid="shortcuts-help"
      actions={
        <Button variant="primary" onPress={() => onOpenChange(false)}>
          Close
        </Button>
      }
    >
      {helpGroups.map((group) => (
        <section key={group} aria-label={group}>
          <h3>{group}</h3>
          <table className="shortcuts__table">
            <tbody>
              {shortcuts
                .filter((s) => s.group === group)
                .map((s) => (
                  <tr key={s.id}>
                    <th scope="row">{s.label}</th>
                    <td>
                      {s.sequence ? (
                        <span>
                          {s.sequence.map((k, i) => (
                            <span key={k}>
                              {i > 0 && <span className="muted"> then </span>}
                              <kbd>{k}</kbd>
                            </span>
                          ))}
                        </span>
                      ) : null}
                      {(s.sequence ? [] : [acceleratorFor(s, isMac), ...(s.alternatives ?? [])]).map(
                        (acc, i) => (
                          <span key={acc}>
                            {i > 0 && <span className="muted"> or </span>}
                            {acceleratorKeys(acc, isMac).map((k) => (
                              <kbd key={k}>{k}</kbd>
                            ))}
                          </span>
                        ),
                      )}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </Dialog>
  );
}
