/**
 * The partner's session token, held in this tab's sessionStorage only (gone when the tab closes,
 * never in a cookie, so it is sent only where the console sends it: the Authorization header).
 */
const KEY = 'xchain.console.session';

export function storedToken(): string | undefined {
  try {
    return window.sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeToken(token: string | undefined): void {
  try {
    if (token === undefined) window.sessionStorage.removeItem(KEY);
    else window.sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused (a private window's quota): the token stays in memory for this page only.
  }
}
