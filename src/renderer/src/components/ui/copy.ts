/**
 * Puts text on the clipboard. The Async Clipboard API needs a permission the window's session
 * denies (every permission request is refused), so the fallback copies a selected, off-screen
 * textarea with execCommand, which works inside the user's click without any permission.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'ui-offscreen';
    document.body.append(ta);
    ta.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    } finally {
      ta.remove();
    }
  }
}
