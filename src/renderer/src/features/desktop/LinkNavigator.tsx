import { routePath } from '../../../../shared/link-routes';
import { useRouter } from '../../lib/router';
import { useDeskEvent } from '../../lib/events';

/**
 * A treasury-desk:// link opened while the window is up: main parsed it (src/main/electron/links)
 * and pushes `desktop.openLink`; this only moves to that screen (the screen reads as usual).
 */
export function LinkNavigator() {
  const navigate = useRouter((s) => s.navigate);
  useDeskEvent('desktop.openLink', (route) => navigate(routePath(route)));
  return null;
}
