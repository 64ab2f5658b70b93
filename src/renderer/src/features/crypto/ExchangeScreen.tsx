import { useEffect } from 'react';
import { AccountBook } from './AccountBook';
import { ExchangeList } from './ExchangeList';
import { OrderForm } from './OrderForm';
import { QuoteView } from './QuoteView';
import { useCrypto } from './store';

/** #/exchange, #/exchange/new, #/exchange/accounts, #/exchange/<order id>. */
export function ExchangeScreen({ params }: { params: string[] }) {
  const listen = useCrypto((s) => s.listen);
  useEffect(() => listen(), [listen]);
  const [first] = params;
  if (first === 'new') return <OrderForm />;
  if (first === 'accounts') return <AccountBook />;
  if (first) return <QuoteView key={first} orderId={first} />;
  return <ExchangeList />;
}
