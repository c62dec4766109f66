// Rows of the metering tables as both backends return them (the PostgreSQL schema mirrors
// SQLite's) and the records the Store interface hands out.
import type { BillingRecord, Invoice, InvoiceLine, OutboxItem, OutboxRecord } from './metering.js';

export interface BillingRow {
  account_id: string;
  cycle: BillingRecord['cycle'];
  period_start: number;
  period_end: number;
  period_plan: BillingRecord['periodPlan'];
  billed_plan: BillingRecord['billedPlan'];
  pending_cycle: BillingRecord['pendingCycle'];
  cancel_at_period_end: number | boolean; // SQLite 0/1, PostgreSQL boolean
  read_only_until: number | null;
  payment_failed_at: number | null;
  dunning_stage: number;
  webhook_url: string | null;
  custom_charts: number | null;
  custom_per_minute: number | null;
  custom_per_hour: number | null;
  custom_burst: number | null;
  custom_price_pence: number | null;
  custom_retention_days: number | null;
  custom_discount_percent: number | null;
}

export const BILLING_COLUMNS: Record<keyof Omit<BillingRecord, 'accountId'>, keyof BillingRow> = {
  cycle: 'cycle',
  periodStart: 'period_start',
  periodEnd: 'period_end',
  periodPlan: 'period_plan',
  billedPlan: 'billed_plan',
  pendingCycle: 'pending_cycle',
  cancelAtPeriodEnd: 'cancel_at_period_end',
  readOnlyUntil: 'read_only_until',
  paymentFailedAt: 'payment_failed_at',
  dunningStage: 'dunning_stage',
  webhookUrl: 'webhook_url',
  customCharts: 'custom_charts',
  customPerMinute: 'custom_per_minute',
  customPerHour: 'custom_per_hour',
  customBurst: 'custom_burst',
  customPricePence: 'custom_price_pence',
  customRetentionDays: 'custom_retention_days',
  customDiscountPercent: 'custom_discount_percent',
};

export const toBilling = (r: BillingRow): BillingRecord => ({
  accountId: r.account_id,
  cycle: r.cycle,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  periodPlan: r.period_plan,
  billedPlan: r.billed_plan,
  pendingCycle: r.pending_cycle,
  cancelAtPeriodEnd: r.cancel_at_period_end === 1 || r.cancel_at_period_end === true,
  readOnlyUntil: r.read_only_until,
  paymentFailedAt: r.payment_failed_at,
  dunningStage: r.dunning_stage,
  webhookUrl: r.webhook_url,
  customCharts: r.custom_charts,
  customPerMinute: r.custom_per_minute,
  customPerHour: r.custom_per_hour,
  customBurst: r.custom_burst,
  customPricePence: r.custom_price_pence,
  customRetentionDays: r.custom_retention_days,
  customDiscountPercent: r.custom_discount_percent,
});

export interface InvoiceRow {
  id: string;
  account_id: string;
  issued_at: number;
  period_start: number;
  period_end: number;
  plan: Invoice['plan'];
  cycle: Invoice['cycle'];
  lines: string;
  total_pence: number;
  status: Invoice['status'];
  paid_at: number | null;
}

export const toInvoice = (r: InvoiceRow): Invoice => ({
  id: r.id,
  accountId: r.account_id,
  issuedAt: r.issued_at,
  periodStart: r.period_start,
  periodEnd: r.period_end,
  plan: r.plan,
  cycle: r.cycle,
  lines: JSON.parse(r.lines) as InvoiceLine[],
  totalPence: r.total_pence,
  status: r.status,
  paidAt: r.paid_at,
});

export interface OutboxRow {
  id: number;
  kind: OutboxItem['kind'];
  account_id: string;
  target: string;
  subject: string | null;
  body: string;
  status: OutboxRecord['status'];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export const toOutbox = (r: OutboxRow): OutboxRecord => ({
  id: r.id,
  kind: r.kind,
  accountId: r.account_id,
  target: r.target,
  subject: r.subject,
  body: r.body,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});
