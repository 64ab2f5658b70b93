import { useEffect, useMemo, useState } from 'react';
import {
  Autocomplete,
  Dialog,
  Header,
  Input,
  Menu,
  MenuItem,
  MenuSection,
  Modal,
  ModalOverlay,
  SearchField,
} from 'react-aria-components';
import { Search } from 'lucide-react';
import { call, errorMessage } from '../../lib/desk';
import { useRouter } from '../../lib/router';
import { pushToast } from '../../lib/toasts';
import { describeActivity } from '../../../../shared/activity';
import { formatMinor, isMinorUnits, parseMinor } from '../../../../shared/money';
import { paletteItems } from './items';
import { usePalette } from './store';
import type { PaletteData, PaletteItem } from './items';

const emptyData: PaletteData = { rfis: [], transfers: [], quotes: [], profiles: [], screens: [] };

/** Everything the palette searches, read from main when it opens (and RFIs again as the text changes). */
async function loadData(screens: PaletteData['screens']): Promise<PaletteData> {
  const [recent, orders, settings] = await Promise.all([
    call('returns.recent', undefined).catch(() => ({ items: [] })),
    call('crypto.list', undefined).catch(() => ({ orders: [] })),
    call('settings.get', undefined).catch(() => null),
  ]);
  return {
    rfis: [],
    transfers: recent.items.map((t) => ({
      transactionId: t.transactionId,
      debtorName: t.debtorName,
      label: [
        t.debtorName ?? 'Transfer',
        t.amount && t.currency && isMinorUnits(t.amount)
          ? formatMinor(parseMinor(t.amount), t.currency)
          : null,
      ]
        .filter(Boolean)
        .join(' — '),
    })),
    quotes: orders.orders.map((o) => ({
      id: o.id,
      transactionId: o.transactionId,
      status: o.displayStatus,
      label: describeActivity({
        operation: 'crypto.create_order',
        outcome: 'succeeded',
        target: null,
        facts: o.crypto
          ? {
              side: o.request.side,
              baseAsset: o.crypto.base_asset,
              baseAmount:
                o.request.side === 'buy' ? o.crypto.customer_receives_amount : o.crypto.customer_pays_amount,
              quoteAsset: o.crypto.quote_asset,
              quoteAmount:
                o.request.side === 'buy' ? o.crypto.customer_pays_amount : o.crypto.customer_receives_amount,
            }
          : { side: o.request.side, baseAsset: o.request.base_asset },
      }).replace(/^Quote requested — /, 'Quote: '),
    })),
    profiles: settings
      ? settings.profiles.map((p) => ({ id: p.id, name: p.name, active: p.id === settings.activeProfileId }))
      : [],
    screens,
  };
}

export interface CommandPaletteProps {
  screens: PaletteData['screens'];
}

/**
 * The command palette (Ctrl/Cmd+K): jump to an RFI, transfer or quote by id or text, or run a main
 * action. React Aria's Autocomplete over a Menu: the text field keeps focus, arrows move the
 * highlighted item, Enter runs it, Escape closes and focus returns.
 */
export function CommandPalette({ screens }: CommandPaletteProps) {
  const open = usePalette((s) => s.open);
  const setOpen = usePalette((s) => s.setOpen);
  const [text, setText] = useState('');
  const [data, setData] = useState<PaletteData>(emptyData);
  const [rfis, setRfis] = useState<PaletteData['rfis']>([]);
  const navigate = useRouter((s) => s.navigate);

  useEffect(() => {
    if (!open) return;
    let live = true;
    void loadData(screens).then((d) => {
      if (live) setData(d);
    });
    return () => {
      live = false;
    };
  }, [open, screens]);

  // RFIs are searched in main (the cache may hold thousands), a few at a time.
  useEffect(() => {
    if (!open) return;
    let live = true;
    const t = setTimeout(() => {
      void call('rfis.list', { text: text.trim() || undefined, limit: 8, sort: 'deadline' })
        .then((r) => {
          if (live)
            setRfis(
              r.items.map((x) => ({ id: x.id, description: x.description, type: x.type, status: x.status })),
            );
        })
        .catch(() => undefined);
    }, 120);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [open, text]);

  const items = useMemo(() => paletteItems(text, { ...data, rfis }), [text, data, rfis]);
  const sections = useMemo(() => {
    const by = new Map<PaletteItem['section'], PaletteItem[]>();
    for (const i of items) by.set(i.section, [...(by.get(i.section) ?? []), i]);
    return [...by.entries()];
  }, [items]);

  const close = (): void => {
    setOpen(false);
    setText('');
  };

  const run = (item: PaletteItem): void => {
    close();
    const r = item.run;
    if (r.kind === 'navigate') navigate(r.to);
    else if (r.kind === 'sync') {
      void call('rfis.sync', undefined)
        .then((res) =>
          pushToast({
            key: 'palette-sync',
            tone: res.sync.state === 'idle' ? 'ok' : 'warn',
            title: res.sync.state === 'idle' ? 'RFIs synced' : 'RFI sync did not complete',
            body: res.sync.lastError,
            link: { to: '/rfis', label: 'Open the RFIs' },
          }),
        )
        .catch((err: unknown) =>
          pushToast({ key: 'palette-sync', tone: 'bad', title: 'RFI sync failed', body: errorMessage(err) }),
        );
    } else {
      void call('settings.activateProfile', { profileId: r.profileId })
        .then(() =>
          pushToast({
            key: 'palette-profile',
            tone: 'ok',
            title: `Switched to ${item.label.replace(/^Switch profile: /, '')}`,
          }),
        )
        .catch((err: unknown) =>
          pushToast({
            key: 'palette-profile',
            tone: 'bad',
            title: 'Profile not switched',
            body: errorMessage(err),
          }),
        );
    }
  };

  const byId = new Map(items.map((i) => [i.id, i]));
  return (
    <ModalOverlay
      isOpen={open}
      onOpenChange={(o) => (o ? setOpen(true) : close())}
      isDismissable
      className="ui-modal-overlay palette-overlay"
    >
      <Modal className="ui-modal palette">
        <Dialog aria-label="Command palette" className="palette__dialog">
          <Autocomplete inputValue={text} onInputChange={setText}>
            <SearchField
              aria-label="Search RFIs, transfers, quotes and actions"
              autoFocus
              className="palette__search"
            >
              <Search size={16} aria-hidden="true" className="palette__icon" />
              <Input
                placeholder="Search by id or text, or type an action…"
                className="ui-input palette__input"
              />
            </SearchField>
            <Menu
              aria-label="Results"
              className="palette__list"
              onAction={(key) => {
                const item = byId.get(String(key));
                if (item) run(item);
              }}
              renderEmptyState={() => <p className="palette__empty">Nothing matches “{text}”.</p>}
            >
              {sections.map(([section, list]) => (
                <MenuSection key={section} className="palette__section">
                  <Header className="palette__header">{section}</Header>
                  {list.map((i) => (
                    <MenuItem
                      key={i.id}
                      id={i.id}
                      textValue={i.label}
                      // The name holds all the item's visible text (its words and its hint).
                      aria-label={i.hint ? `${i.label} ${i.hint}` : i.label}
                      className="palette__item"
                    >
                      {/* Plain text, no label/description slots: the item's name is its aria-label,
                          which holds all of its visible text. */}
                      <span className="palette__label">{i.label}</span>{' '}
                      {i.hint && <span className="palette__hint">{i.hint}</span>}
                    </MenuItem>
                  ))}
                </MenuSection>
              ))}
            </Menu>
          </Autocomplete>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
