import { useEffect, useState } from 'preact/hooks';

/** The current path, kept in step with pushState navigation and the back button. */
export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname + window.location.search);
  useEffect(() => {
    const update = () => setPath(window.location.pathname + window.location.search);
    window.addEventListener('popstate', update);
    window.addEventListener('xchain:navigate', update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener('xchain:navigate', update);
    };
  }, []);
  return path;
}

/** Goes to a path of the same page without a reload (`replace` keeps the history entry). */
export function navigate(to: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event('xchain:navigate'));
  window.scrollTo(0, 0);
}

/** A click on an in-page link: navigate without a reload, unless the user asked for a new tab. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? undefined;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}
