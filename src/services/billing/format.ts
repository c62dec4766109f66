// How billing writes dates and plan names in invoice lines, events and e-mails.
import type { PlanName } from '../../rules/plans.js';

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const planLabel = (p: PlanName): string => p.charAt(0).toUpperCase() + p.slice(1);
