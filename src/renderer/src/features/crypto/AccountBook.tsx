import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { ACCOUNT_ASSETS } from '../../../../shared/catalogue';
import { errorMessage } from '../../lib/desk';
import { useCrypto } from './store';

/** The local account book: account ids with labels, used by the order form. */
export function AccountBook() {
  const context = useCrypto((s) => s.context);
  const contextError = useCrypto((s) => s.contextError);
  const { loadContext, saveAccount, removeAccount } = useCrypto.getState();
  const id = useId();
  const [accountId, setAccountId] = useState('');
  const [label, setLabel] = useState('');
  const [asset, setAsset] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [edits, setEdits] = useState<Record<string, string>>({});

  useEffect(() => {
    void loadContext();
  }, [loadContext]);

  const run = async (fn: () => Promise<void>): Promise<boolean> => {
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    }
  };

  const add = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const ok = await run(() =>
      saveAccount({ accountId: accountId.trim(), label: label.trim(), ...(asset ? { asset } : {}) }),
    );
    if (ok) {
      setAccountId('');
      setLabel('');
      setAsset('');
    }
  };

  return (
    <section className="screen crypto-accounts" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Account book</h1>
      <p className="muted">
        Account ids with your labels, offered in the exchange form. The bank checks that an account belongs to
        your legal entity when you request a quote. <a href="#/exchange/new">Back to the order form</a>
      </p>
      {contextError && <p role="alert">{contextError}</p>}
      {error && (
        <p role="alert" className="notice notice--bad" data-testid="crypto-accounts-error">
          {error}
        </p>
      )}
      {context && (
        <div className="table-wrap">
          <table data-testid="crypto-accounts">
            <caption className="visually-hidden">Accounts</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Account id</th>
                <th scope="col">Asset</th>
                <th scope="col">Legal entity</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {context.accounts.map((a) => (
                <tr key={a.accountId}>
                  <td>
                    <label className="visually-hidden" htmlFor={`${id}-l-${a.accountId}`}>
                      Label of {a.accountId}
                    </label>
                    <input
                      id={`${id}-l-${a.accountId}`}
                      value={edits[a.accountId] ?? a.label}
                      onChange={(e) => setEdits({ ...edits, [a.accountId]: e.target.value })}
                    />
                  </td>
                  <td>
                    <code>{a.accountId}</code>
                  </td>
                  <td>{a.asset || 'unknown'}</td>
                  <td>
                    {a.legalEntityId ?? '—'}
                    {a.legalEntityId && a.legalEntityId === context.legalEntityId ? ' (yours)' : ''}
                  </td>
                  <td>
                    <button
                      type="button"
                      disabled={edits[a.accountId] === undefined}
                      onClick={() =>
                        void run(() =>
                          saveAccount({
                            accountId: a.accountId,
                            label: (edits[a.accountId] ?? a.label).trim(),
                          }),
                        ).then((ok) => {
                          if (ok) {
                            const { [a.accountId]: _, ...rest } = edits;
                            setEdits(rest);
                          }
                        })
                      }
                    >
                      Save label<span className="visually-hidden"> of {a.accountId}</span>
                    </button>{' '}
                    <button type="button" onClick={() => void run(() => removeAccount(a.accountId))}>
                      Remove<span className="visually-hidden"> {a.accountId}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="crypto-accounts__add" onSubmit={(e) => void add(e)}>
        <h2>Add an account</h2>
        <label htmlFor={`${id}-new-id`}>Account id</label>
        <input id={`${id}-new-id`} value={accountId} onChange={(e) => setAccountId(e.target.value)} />
        <label htmlFor={`${id}-new-label`}>Label</label>
        <input id={`${id}-new-label`} value={label} onChange={(e) => setLabel(e.target.value)} />
        <label htmlFor={`${id}-new-asset`}>Asset</label>
        <select id={`${id}-new-asset`} value={asset} onChange={(e) => setAsset(e.target.value)}>
          <option value="">Unknown</option>
          {ACCOUNT_ASSETS.map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
        <button type="submit" disabled={!accountId.trim() || !label.trim()}>
          Add account
        </button>
      </form>
    </section>
  );
}
