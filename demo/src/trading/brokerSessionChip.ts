/**
 * The header's broker session chip: connected, or expired with the sign-in
 * address shown (never followed) and a "Re-authenticate" button that stands
 * in for signing in again at the paper broker.
 */
import type { FaultInjector } from '../broker/faults.js';
import { AUTH_URL } from '../broker/gateway.js';
import { el, setText } from '../ui/dom.js';
import { button } from '../ui/widgets.js';

/** Shows the broker session state in the header. */
export function brokerSessionChip(root: HTMLElement, faults: FaultInjector, reauthenticate: () => void): void {
  const label = el('span', { class: 'chip-state' });
  const relogin = button('Re-authenticate', 'mini primary', 'broker-reauthenticate');
  relogin.addEventListener('click', reauthenticate);
  root.replaceChildren(
    el('span', { class: 'header-label', text: 'Broker' }),
    el('span', { class: 'chip-dot' }),
    label,
    relogin,
  );
  const paint = (): void => {
    const expired = faults.list().some((rule) => rule.kind === 'sessionExpired');
    root.dataset['state'] = expired ? 'expired' : 'connected';
    setText(label, expired ? 'Session expired' : 'Connected');
    relogin.hidden = !expired;
    root.title = expired
      ? `Sign in again at ${AUTH_URL} (shown, not opened); here "Re-authenticate" does it.`
      : 'Paper broker session active';
  };
  faults.onChange(paint);
  paint();
}
