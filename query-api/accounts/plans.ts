import type { ApiConfig } from '../config.ts';

/**
 * Plan ladder. A user's `plan` (as the portal writes it) maps to a level and a per-minute burst; the level
 * carries the monthly quota and the history window (configurable, see config.ts). `null` = unlimited.
 */
export const LEVELS = ['starter', 'standard', 'pro', 'enterprise'] as const;
export type Level = (typeof LEVELS)[number];

export interface PlanSpec {
  readonly plan: string;
  readonly level: Level;
  readonly billing: 'monthly' | 'yearly' | 'custom';
  readonly burstPerMinute: number | null;
  readonly description: string;
}

export const PLANS: readonly PlanSpec[] = [
  { plan: 'api_monthly', level: 'standard', billing: 'monthly', burstPerMinute: 60, description: 'API-only plan, monthly billing' },
  { plan: 'api_yearly', level: 'standard', billing: 'yearly', burstPerMinute: 120, description: 'API-only plan, yearly billing' },
  {
    plan: 'terminal_yearly',
    level: 'starter',
    billing: 'yearly',
    burstPerMinute: 30,
    description: 'Terminal yearly plan (includes starter API access)',
  },
  { plan: 'bundle_monthly', level: 'pro', billing: 'monthly', burstPerMinute: 120, description: 'Bundle monthly API plan' },
  { plan: 'legacy', level: 'pro', billing: 'custom', burstPerMinute: 120, description: 'Legacy plan' },
  { plan: 'enterprise', level: 'enterprise', billing: 'custom', burstPerMinute: null, description: 'Enterprise agreement' },
];

export const PLAN_NAMES: readonly string[] = PLANS.map((p) => p.plan);

export function planSpec(plan: string): PlanSpec | undefined {
  return PLANS.find((p) => p.plan === plan);
}

/** Subscription statuses the portal writes. Only `active` grants API access. */
export const STATUSES = ['active', 'trialing', 'past_due', 'lapsed', 'canceled'] as const;

export interface LevelLimits {
  readonly monthlyQuota: number | null;
  readonly historyDays: number | null;
}

export function levelLimits(config: ApiConfig, level: Level): LevelLimits {
  switch (level) {
    case 'starter':
      return { monthlyQuota: config.quotaStarter, historyDays: config.historyDaysStarter };
    case 'standard':
      return { monthlyQuota: config.quotaStandard, historyDays: config.historyDaysStandard };
    case 'pro':
      return { monthlyQuota: config.quotaPro, historyDays: config.historyDaysPro };
    case 'enterprise':
      return { monthlyQuota: config.quotaEnterprise, historyDays: config.historyDaysEnterprise };
  }
}

/** Everything the limiter and the history clamp need to know about a caller. */
export interface Entitlement {
  readonly plan: string;
  readonly level: Level;
  readonly burstPerMinute: number | null;
  readonly monthlyQuota: number | null;
  readonly historyDays: number | null;
}

export function entitlementOf(config: ApiConfig, plan: string): Entitlement | undefined {
  const spec = planSpec(plan);
  if (spec === undefined) return undefined;
  return { plan: spec.plan, level: spec.level, burstPerMinute: spec.burstPerMinute, ...levelLimits(config, spec.level) };
}

/** The ladder as served in /v2/meta `rate_limits`. */
export function rateLimitLadder(config: ApiConfig): readonly {
  plan: string;
  level: Level;
  billing: string;
  burst_per_minute: number | null;
  monthly_quota: number | null;
  history_days: number | null;
  description: string;
}[] {
  return PLANS.map((p) => {
    const l = levelLimits(config, p.level);
    return {
      plan: p.plan,
      level: p.level,
      billing: p.billing,
      burst_per_minute: p.burstPerMinute,
      monthly_quota: l.monthlyQuota,
      history_days: l.historyDays,
      description: p.description,
    };
  });
}
