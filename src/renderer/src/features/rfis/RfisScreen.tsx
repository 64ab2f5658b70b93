import { DetailScreen } from './DetailScreen';
import { QueueScreen } from './QueueScreen';

/** #/rfis → the queue; #/rfis/<id> → one RFI. */
export function RfisScreen({ params }: { params: string[] }) {
  const id = params[0];
  return id ? <DetailScreen key={id} id={id} /> : <QueueScreen />;
}
