/**
 * Builds the trading panels into the terminal's reserved slots: order
 * ticket, depth ladder, blotter, alerts, risk, FX quote, the broker session
 * chip and the test-fault panel, all over one paper broker.
 */
import type { PaperBroker } from '../broker/paperBroker.js';
import type { MarketSimulator } from '../market/simulator.js';
import { byTestId } from '../ui/dom.js';
import type { FrameBatcher } from '../ui/frameBatcher.js';
import type { LadderModel } from '../ladder/ladderModel.js';
import { TRADING_CONTROLLERS } from './mountTrading.js';
import { AlertsView } from '../alerts/alertsView.js';
import { BlotterView } from '../orders/blotterView.js';
import { brokerSessionChip } from './brokerSessionChip.js';
import { DepthLadderView } from '../ladder/depthLadderView.js';
import { FaultPanel } from '../faults/faultPanel.js';
import { FxQuoteView } from '../fx/fxQuoteView.js';
import { OrderTicket } from '../orders/orderTicket.js';
import { RiskView } from '../risk/riskView.js';

/** What the panels need. */
export interface PanelParts {
  broker: PaperBroker;
  market: MarketSimulator;
  frames: FrameBatcher;
  ladder: LadderModel;
}

/** Every control id an agent may call, plus the person-only alert creation: the fault scopes. */
function faultScopes(): string[] {
  const ids = TRADING_CONTROLLERS.flatMap((c) => Object.keys(c.controls).map((method) => `${c.name}.${method}`));
  return [...ids, 'alerts.create'];
}

/** Mounts every trading panel; returns the ticket (a watchlist pick may prefill it). */
export function mountPanels(parts: PanelParts): { ticket: OrderTicket } {
  const { broker, market, frames, ladder } = parts;
  const reauthenticate = (): void => broker.reauthenticate();
  brokerSessionChip(byTestId('broker-session'), broker.faults, reauthenticate);
  const ticket = new OrderTicket(byTestId('ticket-body'), broker, market, frames);
  const ladderPanel = byTestId('panel-depth-ladder');
  new DepthLadderView(
    byTestId('ladder-body'),
    byTestId('ladder-head', ladderPanel),
    broker,
    market,
    ladder,
    frames,
    (p) => ticket.prefill(p),
  );
  new BlotterView(byTestId('blotter-body'), byTestId('blotter-head'), broker, market, frames, {
    prefill: (p) => ticket.prefill(p),
    modify: (order) => ticket.startModify(order),
  });
  new AlertsView(byTestId('alerts-body'), byTestId('alerts-head'), broker, market, frames);
  new RiskView(byTestId('risk-body'), broker, market, frames);
  new FxQuoteView(byTestId('fx-body'), broker, market, frames);
  new FaultPanel(byTestId('statusbar'), byTestId('terminal'), broker.faults, faultScopes(), reauthenticate);
  return { ticket };
}
