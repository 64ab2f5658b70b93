import { useSubscription } from '../../lib/events';
import { AccountBook } from './AccountBook';
import { ExchangeList } from './ExchangeList';
import { OrderForm } from './OrderForm';
import { QuoteView } from './QuoteView';
import { cryptoSubscription } from './store';

/** #/exchange, #/exchange/new, #/exchange/accounts, #/exchange/<order id>. */
export function ExchangeScreen({ params }: { params: string[] }) {
  useSubscription(cryptoSubscription);
  const [first] = params;
  if (first === 'new') return <OrderForm />;
  if (first === 'accounts') return <AccountBook />;
  if (first) return <QuoteView key={first} orderId={first} />;
  return <ExchangeList />;
}
