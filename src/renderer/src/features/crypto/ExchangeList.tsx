import { useEffect, useId } from 'react';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { useCrypto } from './store';

/** This workstation's quotes and orders in the active environment, newest first. */
export function ExchangeList() {
  const ids = useCrypto((s) => s.listIds);
  const orders = useCrypto((s) => s.orders);
  const loaded = useCrypto((s) => s.listLoaded);
  const listError = useCrypto((s) => s.listError);
  const loadList = useCrypto((s) => s.loadList);
  const id = useId();

  useEffect(() => {
    void loadList();
    // Keep statuses (expiry, settlement) current while the list is shown.
    const t = setInterval(() => void loadList(), 3000);
    return () => clearInterval(t);
  }, [loadList]);

  return (
    <section className="screen crypto-list" aria-labelledby={`${id}-title`}>
      <h1 id={`${id}-title`}>Exchange</h1>
      <div className="actions">
        <a className="button-link primary" href="#/exchange/new" data-testid="crypto-new">
          New quote
        </a>
        <a className="button-link" href="#/exchange/accounts">
          Account book
        </a>
      </div>
      {listError && <p role="alert">{listError}</p>}
      {!loaded ? (
        <p role="status">Loading…</p>
      ) : ids.length === 0 ? (
        <p data-testid="crypto-list-empty">No quotes or orders from this workstation yet.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="crypto-list">
            <caption className="visually-hidden">Quotes and orders</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Order</th>
                <th scope="col">Requested</th>
                <th scope="col">Pays</th>
                <th scope="col">Receives</th>
                <th scope="col">Status</th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {ids.map((oid) => {
                const o = orders[oid];
                if (!o) return null;
                const c = o.crypto;
                return (
                  <tr key={oid} data-testid="crypto-list-row" data-order-id={oid}>
                    <td>{new Date(o.createdAt).toLocaleString()}</td>
                    <td>
                      <a href={`#/exchange/${oid}`}>
                        {o.request.side} {o.request.symbol}
                      </a>
                    </td>
                    <td>
                      <Money amount={o.request.requested_amount} currency={o.request.requested_asset} />
                    </td>
                    <td>
                      {c ? <Money amount={c.customer_pays_amount} currency={c.customer_pays_asset} /> : '—'}
                    </td>
                    <td>
                      {c ? (
                        <Money amount={c.customer_receives_amount} currency={c.customer_receives_asset} />
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>
                      <StatusBadge status={o.displayStatus} data-testid="crypto-list-status" />
                    </td>
                    <td>
                      <code>{o.transactionId ?? '—'}</code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
