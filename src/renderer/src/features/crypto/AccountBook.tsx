import { useEffect, useId, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { Plus, Save, Trash2 } from 'lucide-react';
import { assetLongLabel, assetTitle } from '../../../../shared/activity';
import { ACCOUNT_ASSETS } from '../../../../shared/catalogue';
import type { AccountBookEntry } from '../../../../shared/ipc/channels/crypto';
import {
  BackLink,
  Button,
  CopyableId,
  DataTable,
  IconButton,
  Select,
  Skeleton,
  TextField,
} from '../../components/ui';
import type { DataColumn } from '../../components/ui';
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

  const ownLe = context?.legalEntityId ?? null;
  const columns = useMemo<DataColumn<AccountBookEntry>[]>(
    () => [
      {
        id: 'label',
        header: 'Label',
        accessorKey: 'label',
        cell: (c) => {
          const a = c.row.original;
          return (
            <TextField
              label={`Label of ${a.accountId}`}
              hideLabel
              className="account-book__label"
              value={edits[a.accountId] ?? a.label}
              onChange={(v) => setEdits((e) => ({ ...e, [a.accountId]: v }))}
            />
          );
        },
        meta: { width: 'minmax(190px, 2fr)' },
      },
      {
        id: 'account',
        header: 'Account id',
        accessorKey: 'accountId',
        cell: (c) => <CopyableId id={c.row.original.accountId} kind="account id" />,
        // The id is copyable and secondary: it gives up its width to the names first.
        meta: { width: 'minmax(120px, 1.5fr)', title: () => undefined },
      },
      {
        id: 'asset',
        header: 'Asset',
        accessorFn: (a) => (a.asset ? assetLongLabel(a.asset) : 'unknown'),
        meta: {
          width: '156px',
          title: (a) => (a.asset ? assetTitle(a.asset) : 'unknown'),
        },
      },
      {
        id: 'le',
        header: 'Legal entity',
        accessorFn: (a) => a.holderName ?? a.legalEntityId ?? '',
        cell: (c) => {
          const { legalEntityId: le, holderName } = c.row.original;
          if (!le) return <span className="muted">not known</span>;
          // The entity by name (the bank's), its id in the title; unnamed, "Yours" or the id.
          if (holderName) return <span>{holderName}</span>;
          return le === ownLe ? 'Yours' : <CopyableId id={le} kind="legal entity id" />;
        },
        meta: {
          // The holder's name whole at 1024 px ("Alder Trade GmbH").
          width: 'minmax(170px, 1.5fr)',
          title: (a) =>
            a.legalEntityId
              ? a.holderName
                ? `${a.holderName} (${a.legalEntityId})`
                : a.legalEntityId === ownLe
                  ? `Yours (${a.legalEntityId})`
                  : undefined
              : 'not known',
        },
      },
      {
        id: 'actions',
        header: 'Actions',
        enableSorting: false,
        cell: (c) => {
          const a = c.row.original;
          return (
            <span className="account-book__actions">
              <IconButton
                label={`Save label of ${a.accountId}`}
                icon={<Save size={16} aria-hidden="true" />}
                isDisabled={edits[a.accountId] === undefined}
                onPress={() =>
                  void run(() =>
                    saveAccount({ accountId: a.accountId, label: (edits[a.accountId] ?? a.label).trim() }),
                  ).then((ok) => {
                    if (ok)
                      setEdits((e) => {
                        const { [a.accountId]: _, ...rest } = e;
                        return rest;
                      });
                  })
                }
              />
              <IconButton
                label={`Remove ${a.accountId}`}
                variant="danger"
                icon={<Trash2 size={16} aria-hidden="true" />}
                onPress={() => void run(() => removeAccount(a.accountId))}
              />
            </span>
          );
        },
        meta: { width: '96px', title: () => undefined },
      },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [edits, ownLe],
  );

  return (
    <section className="screen crypto-accounts" aria-labelledby={`${id}-title`}>
      <BackLink href="#/exchange/new">Back to the order form</BackLink>
      <h1 id={`${id}-title`}>Account book</h1>
      <p className="muted">
        Account ids with your labels, offered in the exchange form. The bank checks that an account belongs to
        your legal entity when you request a quote.
      </p>
      {contextError && (
        <p role="alert" className="notice notice--bad">
          {contextError}
        </p>
      )}
      {error && (
        <p role="alert" className="notice notice--bad" data-testid="crypto-accounts-error">
          {error}
        </p>
      )}
      {!context ? (
        !contextError && <Skeleton label="Loading the account book" lines={3} />
      ) : (
        <div className="list-table" data-testid="crypto-accounts">
          <DataTable
            data={context.accounts}
            columns={columns}
            getRowId={(a) => a.accountId}
            label="Accounts"
          />
        </div>
      )}
      <form className="crypto-accounts__add panel" onSubmit={(e) => void add(e)}>
        <h2>Add an account</h2>
        <div className="crypto-accounts__fields">
          <TextField label="Account id" mono value={accountId} onChange={setAccountId} />
          <TextField label="Label" value={label} onChange={setLabel} />
          <Select
            label="Asset"
            value={asset}
            onChange={setAsset}
            options={[
              { value: '', label: 'Unknown' },
              ...ACCOUNT_ASSETS.map((x) => ({ value: x, label: assetLongLabel(x) })),
            ]}
          />
          <Button
            type="submit"
            variant="primary"
            icon={<Plus size={16} aria-hidden="true" />}
            isDisabled={!accountId.trim() || !label.trim()}
          >
            Add account
          </Button>
        </div>
      </form>
    </section>
  );
}
